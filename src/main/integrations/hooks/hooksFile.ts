/**
 * Retrace's entries merged into an agent's hooks file. Codex's `hooks.json` and Gemini CLI's `settings.json`
 * share Claude Code's shape — `{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command", "command",
 * "timeout", …}]}]}}` — so one merge serves both. Every other key, event, group and hook stays as it is; our
 * entry (found by its command) is updated in place, never duplicated; nothing changes → the file is not
 * rewritten. A file that is not a JSON object is refused (E_INVALID_INPUT) and left untouched.
 */
import { chmodSync, existsSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { mkdirPrivateSync } from '../../engine/privateFs';
import { obj, type Payload } from './payload';

type Json = Record<string, unknown>;

/** The user's own settings, or the project's (`<cwd>/.<agent>/…`). */
export type InstallScope = 'user' | 'project';

/** What `retrace install AGENT` reports. */
export interface HookInstallResult {
  settings: string;
  command: string;
  changed: boolean;
  events: string[];
  /** What the person must still do, or knows now, before the agent runs the hooks (shown with the result). */
  notes?: string[];
}

export interface HookSpec {
  event: string;
  /** Tool events: which tools (the agents read it as a regular expression). */
  matcher?: string;
  /** Our hook entry, e.g. {type: 'command', command, timeout}. */
  entry: Json;
}

/** The new text of the file (null: no file yet), or null when nothing changes. */
export function mergeHooks(
  text: string | null,
  specs: HookSpec[],
  isOurs: (command: unknown) => boolean,
  file: string,
): string | null {
  let doc: Json = {};
  if (text !== null && text.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new RetraceError(
        'E_INVALID_INPUT',
        `${file} is not valid JSON (${(e as Error).message}); it was left unchanged`,
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new RetraceError('E_INVALID_INPUT', `${file} does not hold a JSON object; it was left unchanged`);
    doc = parsed as Json;
  }
  const before = JSON.stringify(doc);
  const hooks = doc.hooks ?? {};
  if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks))
    throw new RetraceError('E_INVALID_INPUT', `${file}: "hooks" is not an object; it was left unchanged`);
  const h = hooks as Json;
  for (const spec of specs) {
    const groups = h[spec.event] ?? [];
    if (!Array.isArray(groups))
      throw new RetraceError('E_INVALID_INPUT', `${file}: hooks.${spec.event} is not a list; it was left unchanged`);
    h[spec.event] = mergeEvent(groups, spec, isOurs);
  }
  doc.hooks = h;
  if (text !== null && JSON.stringify(doc) === before) return null;
  return JSON.stringify(doc, null, 2) + '\n';
}

function mergeEvent(groups: unknown[], spec: HookSpec, isOurs: (command: unknown) => boolean): unknown[] {
  let found = false;
  const out = groups.map((g) => {
    const group = g as Json;
    if (found || !group || typeof group !== 'object' || !Array.isArray(group.hooks)) return g;
    // Ours by its command, or (an HTTP hook) by its url.
    const i = group.hooks.findIndex((x) => isOurs((x as Json | null)?.command) || isOurs((x as Json | null)?.url));
    if (i < 0) return g;
    found = true;
    const list = [...group.hooks];
    const old = list[i] as Json;
    // Switching between a command hook and an HTTP hook: none of the old kind's fields may stay behind.
    list[i] = (old.type ?? 'command') === spec.entry.type ? { ...old, ...spec.entry } : spec.entry;
    const next: Json = { ...group, hooks: list };
    if (spec.matcher !== undefined) next.matcher = spec.matcher;
    return next;
  });
  if (!found)
    out.push(spec.matcher !== undefined ? { matcher: spec.matcher, hooks: [spec.entry] } : { hooks: [spec.entry] });
  return out;
}

/**
 * Take our entries out of `file` (groups left empty go too), e.g. the project's shared settings when our hooks
 * move to its personal ones: both files' hooks would run, and every call would be recorded twice. Returns
 * whether it changed; a missing file is left missing.
 */
export function removeHooks(file: string, isOurs: (command: unknown) => boolean): boolean {
  if (!existsSync(file)) return false;
  const text = readFileSync(file, 'utf8');
  let doc: Json;
  try {
    doc = JSON.parse(text) as Json;
  } catch {
    return false; // not ours to judge: installHooks reports a malformed file where it writes
  }
  const hooks = doc?.hooks as Json | undefined;
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) return false;
  let changed = false;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const kept = groups
      .map((g) => {
        const group = g as Json;
        if (!group || typeof group !== 'object' || !Array.isArray(group.hooks)) return g;
        const list = group.hooks.filter(
          (x) => !isOurs((x as Json | null)?.command) && !isOurs((x as Json | null)?.url),
        );
        if (list.length === group.hooks.length) return g;
        changed = true;
        return list.length > 0 ? { ...group, hooks: list } : null;
      })
      .filter((g) => g !== null);
    // An event only we used goes with our entry; one the user had left empty stays.
    if (kept.length === 0 && groups.length > 0) delete hooks[event];
    else hooks[event] = kept;
  }
  if (!changed) return false;
  writeKeepingMode(file, JSON.stringify(doc, null, 2) + '\n', false);
  return true;
}

/**
 * A settings file as its agent reads it, for a switch that decides whether hooks run (hooksSwitch.ts of each agent):
 * its top-level object; null when it is missing, unreadable or not a JSON object (the agent reports that itself).
 */
export function readSettingsObject(file: string): Payload | null {
  try {
    return obj(JSON.parse(readFileSync(file, 'utf8'))) ?? null;
  } catch {
    return null;
  }
}

/** What `retrace uninstall AGENT` reports: the files looked at, and those our entries were taken out of. */
export interface HookUninstallResult {
  settings: string[];
  removedFrom: string[];
}

/**
 * Take our entries out of each of `files` that exists, everything else kept (removeHooks). A file that is not a
 * JSON object is refused (E_INVALID_INPUT) before any file is changed: "no hooks found" would be a guess.
 */
export function uninstallHooks(files: string[], isOurs: (command: unknown) => boolean): HookUninstallResult {
  for (const file of files) {
    if (!existsSync(file)) continue;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new RetraceError('E_UNREADABLE', `cannot read ${file}: ${(e as Error).message}`);
    }
    if (text.trim() !== '') mergeHooks(text, [], isOurs, file); // throws E_INVALID_INPUT for a malformed file
  }
  return { settings: files, removedFrom: files.filter((f) => removeHooks(f, isOurs)) };
}

/**
 * Read, merge, and (when something changes) replace `file` atomically. Returns whether it changed. The file keeps
 * its mode; `secret`: the entries carry a secret (HTTP hooks' header), so the file is made readable by its owner
 * only — other users of the machine could otherwise read it and post into our sessions.
 */
export function installHooks(
  file: string,
  specs: HookSpec[],
  isOurs: (command: unknown) => boolean,
  opts: { secret?: boolean } = {},
): boolean {
  let text: string | null = null;
  if (existsSync(file)) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new RetraceError('E_UNREADABLE', `cannot read ${file}: ${(e as Error).message}`);
    }
  }
  const next = mergeHooks(text, specs, isOurs, file);
  if (next === null) return false;
  writeKeepingMode(file, next, opts.secret === true);
  return true;
}

/** Replace `file` with `text` atomically, keeping its mode (0600 when `secret`). */
function writeKeepingMode(file: string, text: string, secret: boolean): void {
  try {
    mkdirPrivateSync(dirname(file)); // a folder made for it is the owner's: the file may hold our hook secret
    // Beside and renamed, so the agent never reads a half-written file; through a symlinked file (dotfile
    // managers) to its target, so the link stays a link.
    const target = existsSync(file) ? realpathSync(file) : file;
    const tmp = `${target}.retrace-tmp`;
    const kept = existsSync(target) ? statSync(target).mode & 0o777 : null;
    writeFileSync(tmp, text, { mode: 0o600 });
    // Explicitly: writeFileSync's mode passes through the umask, and a new file must not loosen an old one's.
    chmodSync(tmp, secret ? 0o600 : (kept ?? 0o666 & ~process.umask()));
    renameSync(tmp, target);
  } catch (e) {
    throw new RetraceError('E_DATA_DIR', `cannot write ${file}: ${(e as Error).message}`);
  }
}

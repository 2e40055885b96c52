/**
 * `retrace install claude-code`: put Retrace's three hooks into a Claude Code settings file, keeping every
 * other setting and hook as it is. Running it again changes nothing (the file is not even rewritten); an
 * older Retrace hook entry is updated in place rather than duplicated. A file that is not valid JSON is left
 * untouched and reported.
 *
 * The command written is `retrace hook claude-code` when `retrace` is on PATH (npm link / a global install),
 * otherwise the absolute `node` and `bin/retrace.js` paths of this installation, so the hook works from
 * whatever shell Claude Code starts.
 */
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { claudeConfigDir } from './paths';

export type InstallScope = 'user' | 'project';

/** The tools whose changes the hook checkpoints (Bash included: Claude Code's own rewind misses its changes). */
export const POST_TOOL_MATCHER = 'Edit|Write|MultiEdit|NotebookEdit|Bash';
export const HOOK_EVENTS = ['UserPromptSubmit', 'PostToolUse', 'Stop'] as const;
/** Seconds Claude Code waits for one hook call (the hook itself waits at most this for the workspace lock). */
export const HOOK_TIMEOUT_S = 30;

export function settingsPath(scope: InstallScope, opts: { cwd: string; env?: NodeJS.ProcessEnv }): string {
  return scope === 'user'
    ? join(claudeConfigDir(opts.env ?? process.env), 'settings.json')
    : join(opts.cwd, '.claude', 'settings.json');
}

/** Is this hook command one of ours (any spelling: `retrace …`, `node …/retrace.js …`)? */
export function isRetraceHook(command: unknown): boolean {
  return typeof command === 'string' && /retrace(\.js)?["']?\s+hook\s+claude-code\b/.test(command);
}

/** The command to write: `retrace hook claude-code`, or absolute paths when `retrace` is not on PATH. */
export function hookCommand(opts: { env?: NodeJS.ProcessEnv; binPath?: string; nodePath?: string } = {}): string {
  const env = opts.env ?? process.env;
  if (onPath('retrace', env.PATH ?? '')) return 'retrace hook claude-code';
  const bin = opts.binPath ?? currentBin();
  const node = opts.nodePath ?? process.execPath;
  return `${shellQuote(node)} ${shellQuote(bin)} hook claude-code`;
}

function currentBin(): string {
  const argv1 = process.argv[1];
  if (argv1) {
    try {
      return realpathSync(argv1);
    } catch {
      return argv1;
    }
  }
  throw new RetraceError('E_INTERNAL', 'cannot tell where the retrace command is installed');
}

function onPath(name: string, path: string): boolean {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

type Json = Record<string, unknown>;

/** Merge our hooks into settings JSON text (null: no file yet). Returns the new text, or null if nothing changes. */
export function mergeHookSettings(text: string | null, command: string, file = 'settings.json'): string | null {
  let settings: Json = {};
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
    settings = parsed as Json;
  }
  const before = JSON.stringify(settings);
  const hooks = settings.hooks ?? {};
  if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks))
    throw new RetraceError('E_INVALID_INPUT', `${file}: "hooks" is not an object; it was left unchanged`);
  const h = hooks as Json;
  for (const event of HOOK_EVENTS) {
    const groups = h[event] ?? [];
    if (!Array.isArray(groups))
      throw new RetraceError('E_INVALID_INPUT', `${file}: hooks.${event} is not a list; it was left unchanged`);
    h[event] = mergeEvent(groups, event, command);
  }
  settings.hooks = h;
  if (text !== null && JSON.stringify(settings) === before) return null;
  return JSON.stringify(settings, null, 2) + '\n';
}

function mergeEvent(groups: unknown[], event: string, command: string): unknown[] {
  const entry = { type: 'command', command, timeout: HOOK_TIMEOUT_S };
  const matcher = event === 'PostToolUse' ? POST_TOOL_MATCHER : undefined;
  let found = false;
  const out = groups.map((g) => {
    const group = g as Json;
    if (found || !group || typeof group !== 'object' || !Array.isArray(group.hooks)) return g;
    const i = group.hooks.findIndex((x) => isRetraceHook((x as Json | null)?.command));
    if (i < 0) return g;
    found = true;
    const list = [...group.hooks];
    list[i] = { ...(list[i] as Json), ...entry };
    const next: Json = { ...group, hooks: list };
    if (matcher !== undefined) next.matcher = matcher;
    return next;
  });
  if (!found) out.push(matcher !== undefined ? { matcher, hooks: [entry] } : { hooks: [entry] });
  return out;
}

export interface InstallResult {
  settings: string;
  command: string;
  changed: boolean;
  events: string[];
}

export function installClaudeCodeHooks(
  scope: InstallScope,
  opts: { cwd: string; env?: NodeJS.ProcessEnv; command?: string },
): InstallResult {
  const file = settingsPath(scope, opts);
  const command = opts.command ?? hookCommand(opts.env ? { env: opts.env } : {});
  let text: string | null = null;
  if (existsSync(file)) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new RetraceError('E_UNREADABLE', `cannot read ${file}: ${(e as Error).message}`);
    }
  }
  const next = mergeHookSettings(text, command, file);
  if (next !== null) {
    try {
      mkdirSync(dirname(file), { recursive: true });
      // Beside and renamed, so Claude Code never reads a half-written settings file; through a symlinked
      // settings file (dotfile managers) to its target, so the link stays a link.
      const target = existsSync(file) ? realpathSync(file) : file;
      const tmp = `${target}.retrace-tmp`;
      writeFileSync(tmp, next);
      renameSync(tmp, target);
    } catch (e) {
      throw new RetraceError('E_DATA_DIR', `cannot write ${file}: ${(e as Error).message}`);
    }
  }
  return { settings: file, command, changed: next !== null, events: [...HOOK_EVENTS] };
}

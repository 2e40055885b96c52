/**
 * A resumable fork of a Claude Code session: the lines of the original transcript from the root down to a
 * chosen line (along its parentUuid chain), with `sessionId` rewritten, written as `<newUuid>.jsonl` in the
 * same project folder so that `claude --resume <newUuid>` continues from there. The original is only read.
 *
 * The file-history snapshot lines of prompts on the chain come along, with their backup files copied to
 * `file-history/<newUuid>/`, so Claude Code's own /rewind keeps working in the fork.
 */
import { randomUUID } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { arr, obj, str } from './jsonl';
import { chainTo, parseConversation, type ConvLine } from './conversation';
import { claudeConfigDir, projectDir } from './paths';

export interface ForkTarget {
  /**
   * The line to end at: a transcript uuid, or a tool_use id (`toolu_…`, the hooks record those), whose
   * tool_result line (or, before that is written, the tool call's line) is taken.
   */
  sourceId?: string;
  /** Otherwise: the last line of the resumed branch at or before this time (ISO). */
  ts?: string;
  /** With `ts`: prefer the user line with exactly this text (a prompt the hook recorded before it was written). */
  promptText?: string;
}

export interface ForkResult {
  sessionId: string;
  transcript: string;
  command: string;
  lines: number;
  /** The uuid of the last line copied. */
  lastUuid: string;
}

export function forkTranscript(
  transcriptPath: string,
  target: ForkTarget,
  opts: {
    newId?: string;
    env?: NodeJS.ProcessEnv;
    /** Where to write it; default: beside the original (its Claude Code project folder). */
    dir?: string;
  } = {},
): ForkResult {
  let text: string;
  try {
    text = readFileSync(transcriptPath, 'utf8');
  } catch {
    throw new RetraceError('E_IMPORT', `cannot read the Claude Code transcript ${transcriptPath}`);
  }
  const conv = parseConversation({ text });
  const main = conv.lines.filter((l) => l.file === 'main');
  const byUuid = new Map<string, ConvLine>();
  for (const l of main) if (!byUuid.has(l.uuid)) byUuid.set(l.uuid, l);
  const end = findTarget(target, byUuid, main, conv.mainChain);
  if (!end) throw new RetraceError('E_UNKNOWN_MESSAGE', 'the chosen message is not in the Claude Code transcript');
  const chain = completeToolResults(linesUpTo(end, conv.mainChain, byUuid), main);
  const onChain = new Set(chain.map((l) => l.uuid));

  const oldId = conv.sessionId;
  const entries = [...chain.map((l) => l.entry), ...snapshotEntries(text, onChain)].sort((a, b) => a.line - b.line);
  const render = (id: string) =>
    entries
      .map((entry) => {
        const data = { ...entry.data };
        if ('sessionId' in data) data.sessionId = id;
        return JSON.stringify(data);
      })
      .join('\n') + '\n';
  const backups: string[] = [];
  for (const entry of entries) {
    if (entry.data.type !== 'file-history-snapshot') continue;
    for (const b of Object.values(obj(obj(entry.data.snapshot)?.trackedFileBackups) ?? {})) {
      const name = str(obj(b)?.backupFileName);
      if (name) backups.push(name);
    }
  }

  const dir = opts.dir ?? dirname(transcriptPath);
  mkdirSync(dir, { recursive: true });
  // Restoring the same point again (each `restore --both`) finds the fork it made before: no identical copy.
  const same = opts.newId ? null : identicalFork(dir, transcriptPath, render);
  if (same)
    return {
      sessionId: same,
      transcript: join(dir, `${same}.jsonl`),
      command: `claude --resume ${same}`,
      lines: entries.length,
      lastUuid: end.uuid,
    };
  const newId = opts.newId ?? randomUUID();
  const out = render(newId);
  const dest = join(dir, `${newId}.jsonl`);
  if (existsSync(dest)) throw new RetraceError('E_INTERNAL', `a transcript ${basename(dest)} exists already`);
  // Written beside, then renamed: Claude Code never sees a half-written session. With the mode of the transcript it
  // copies: a fork never lets more people read the conversation than the original does (the umask may narrow it).
  const tmp = join(dir, `.${newId}.jsonl.retrace-tmp`);
  try {
    writeFileSync(tmp, out, { flag: 'wx', mode: statSync(transcriptPath).mode & 0o777 });
    renameSync(tmp, dest);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new RetraceError('E_INTERNAL', `cannot write the forked transcript: ${(e as Error).message}`);
  }
  if (oldId && backups.length > 0) copyBackups(oldId, newId, backups, opts.env ?? process.env);
  return {
    sessionId: newId,
    transcript: dest,
    command: `claude --resume ${newId}`,
    lines: entries.length,
    lastUuid: end.uuid,
  };
}

/**
 * The lines a fork holds: the timeline up to `end` (sibling calls of a parallel response and their results
 * included) when `end` is on it, else `end`'s own chain; with every line's ancestors as written (progress
 * lines and all), so no copied line points at a parent the fork lacks.
 */
function linesUpTo(end: ConvLine, timeline: ConvLine[], byUuid: Map<string, ConvLine>): ConvLine[] {
  const at = timeline.indexOf(end);
  const picked = new Map<string, ConvLine>();
  const seeds = at >= 0 ? timeline.slice(0, at + 1) : [end];
  for (const seed of seeds) {
    if (picked.has(seed.uuid)) continue;
    for (const l of chainTo(seed, byUuid)) picked.set(l.uuid, l);
  }
  return [...picked.values()].sort((a, b) => a.order - b.order);
}

/** An earlier fork in `dir` with exactly the content this one would have (its id), or null. */
function identicalFork(dir: string, original: string, render: (id: string) => string): string | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  const size = Buffer.byteLength(render('00000000-0000-0000-0000-000000000000'));
  for (const name of names) {
    const m = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(name);
    const path = join(dir, name);
    if (!m || path === original) continue;
    try {
      if (statSync(path).size !== size) continue;
      if (readFileSync(path, 'utf8') === render(m[1]!)) return m[1]!;
    } catch {
      continue;
    }
  }
  return null;
}

function findTarget(
  target: ForkTarget,
  byUuid: Map<string, ConvLine>,
  lines: ConvLine[],
  resumed: ConvLine[],
): ConvLine | null {
  const id = target.sourceId;
  if (id && byUuid.has(id)) return byUuid.get(id)!;
  if (id && id.startsWith('toolu_')) {
    const main = lines.filter((l) => !l.isSidechain);
    const result = main.find(
      (l) => l.type === 'user' && blocks(l).some((b) => b.type === 'tool_result' && b.tool_use_id === id),
    );
    if (result) return result;
    const call = main.find(
      (l) => l.type === 'assistant' && blocks(l).some((b) => b.type === 'tool_use' && b.id === id),
    );
    if (call) return call;
  }
  if (target.ts) {
    if (target.promptText !== undefined) {
      const prompt = [...resumed].reverse().find((l) => l.type === 'user' && promptOf(l) === target.promptText);
      if (prompt) return prompt;
    }
    const before = resumed.filter((l) => l.ts !== '' && l.ts <= target.ts!);
    return before.at(-1) ?? null;
  }
  return null;
}

/**
 * The API refuses a conversation whose tool calls have no results. Ending right after one result of several
 * parallel calls (or at a call) would leave some unanswered, so the fork takes the result lines that follow
 * on the chain until every call it holds is answered (or the transcript has no more of them).
 */
function completeToolResults(chain: ConvLine[], lines: ConvLine[]): ConvLine[] {
  const out = [...chain];
  const pending = (): Set<string> => {
    const open = new Set<string>();
    for (const l of out) {
      for (const b of blocks(l)) {
        if (l.type === 'assistant' && b.type === 'tool_use' && typeof b.id === 'string') open.add(b.id);
        if (l.type === 'user' && b.type === 'tool_result' && typeof b.tool_use_id === 'string')
          open.delete(b.tool_use_id);
      }
    }
    return open;
  };
  const children = new Map<string, ConvLine[]>();
  for (const l of lines) {
    if (!l.parentUuid || l.isSidechain) continue;
    const list = children.get(l.parentUuid) ?? [];
    list.push(l);
    children.set(l.parentUuid, list);
  }
  for (let open = pending(); open.size > 0; open = pending()) {
    const next = (children.get(out.at(-1)!.uuid) ?? []).find(
      (c) => c.type === 'user' && blocks(c).some((b) => b.type === 'tool_result' && open.has(String(b.tool_use_id))),
    );
    if (!next) break;
    out.push(next);
  }
  return out;
}

function blocks(l: ConvLine): Record<string, unknown>[] {
  return (arr(obj(l.entry.data.message)?.content) ?? []).map(obj).filter((b): b is Record<string, unknown> => !!b);
}

function promptOf(l: ConvLine): string | undefined {
  const c = obj(l.entry.data.message)?.content;
  if (typeof c === 'string') return c;
  const texts = blocks(l)
    .filter((b) => b.type === 'text')
    .map((b) => str(b.text) ?? '');
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/**
 * The folder `claude --resume` will look in: the original's own folder when it is a Claude Code project
 * folder (`…/projects/<encoded cwd>/`), else the project folder of the session's cwd — so a transcript imported
 * from elsewhere (a copy, a backup) is forked where Claude Code finds it, never beside an arbitrary file.
 */
export function forkFolder(transcriptPath: string, cwd: string | null, env: NodeJS.ProcessEnv = process.env): string {
  const dir = dirname(transcriptPath);
  if (basename(dirname(dir)) === 'projects' || !cwd) return dir;
  return projectDir(cwd, env);
}

/** file-history-snapshot lines that belong to a prompt on the chain (by snapshot.messageId or messageId). */
function snapshotEntries(text: string, onChain: Set<string>) {
  const out: { line: number; raw: string; data: Record<string, unknown> }[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (!raw.includes('"file-history-snapshot"')) continue;
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (data.type !== 'file-history-snapshot') continue;
    const prompt = str(obj(data.snapshot)?.messageId) ?? str(data.messageId);
    const at = str(data.messageId);
    if (prompt && onChain.has(prompt) && (!at || onChain.has(at))) out.push({ line: i, raw, data });
  }
  return out;
}

function copyBackups(oldId: string, newId: string, names: string[], env: NodeJS.ProcessEnv): void {
  const base = join(claudeConfigDir(env), 'file-history');
  const from = join(base, oldId);
  const to = join(base, newId);
  for (const name of new Set(names)) {
    if (name.includes('/') || name.includes('\\') || name.startsWith('.')) continue;
    const src = join(from, name);
    if (!existsSync(src)) continue;
    try {
      mkdirSync(to, { recursive: true });
      copyFileSync(src, join(to, name));
    } catch {
      // A backup that cannot be copied only costs /rewind in the fork; the fork itself is complete.
    }
  }
}

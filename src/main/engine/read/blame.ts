/**
 * Who last changed each line of a file as it is now (CLI.md `retrace blame`): git blame of the working file
 * along the session chains, each commit named by the session log message that carries it.
 *
 * Which chains: with a session, that session's chain (its tip back through every ancestor, which may belong to
 * sessions it continued from). Without one, every session's chain: the tips that are not ancestors of another
 * tip are blamed one by one, and each line takes the EARLIEST recorded step any chain gives it. A checkpoint
 * snapshots the whole folder, so when two sessions take turns in one folder, a step of one also "changes" the
 * lines the other session wrote just before; the earliest step that has the line as it is now is the one that
 * wrote it. (A chain that does not have the line at all reads it as changed since its tip: it has no say.)
 *
 * Origin (originOf below): `agent` for a step recorded from an agent's tool call or reply; `person` for a step a
 * prompt or a plain checkpoint captured (what changed between agent steps), and for lines changed since the last
 * checkpoint (no hash); `baseline` for lines already in the workspace's first checkpoint (no step changed them;
 * no hash).
 */
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isBinaryFileSync } from 'isbinaryfile';
import { RetraceError } from '../../../shared/errors';
import { agentOf, type BlameLine, type BlameResult, type Role } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import { blameContents, headHasPath, type BlamedLine } from '../git/blame';
import { withDetachedView } from '../git/detachedView';
import type { GitRunner } from '../git/runner';
import { checkWorkspacePath } from '../paths';
import { sessionRef } from '../sessions/ids';
import type { SessionState } from '../sessions/replay';

/** Larger files are refused (blame reads the file whole; the diff view inlines at most 2 MiB). */
export const BLAME_MAX_BYTES = 16 * 1024 * 1024;

interface Step {
  session: string;
  message: string;
  role: Role;
  agent: string;
  /** ms since the epoch (the message's time). */
  at: number;
}

export async function blameFile(
  ctx: Pick<WorkspaceContext, 'ws' | 'sessions' | 'shadow'>,
  file: string,
  opts: { session?: string } = {},
): Promise<BlameResult> {
  const rel = await checkWorkspacePath(ctx.ws.root, file);
  const contents = await readWorkingText(ctx.ws.root, rel);
  const all = await ctx.sessions.readAll();
  if (opts.session !== undefined && !all.some((s) => s.header.id === opts.session))
    throw new RetraceError('E_UNKNOWN_SESSION', `no session ${opts.session} in this workspace`);
  const steps = stepsByHash(all);
  const tips = await chainTips(ctx, all, opts.session);

  const perChain =
    tips.length === 0
      ? []
      : await withDetachedView(await viewOf(ctx), tips[0]!, async (view) => {
          const out: BlamedLine[][] = [];
          for (const tip of await independentTips(view.git, tips)) {
            await view.setHead(tip);
            if (!(await headHasPath(view.git, rel))) continue;
            out.push(await blameContents(view.git, rel, contents));
          }
          return out;
        });

  const lineCount = countLines(contents);
  const lines: BlameLine[] = [];
  for (let i = 0; i < lineCount; i++) {
    const candidates = perChain.map((c) => c[i]).filter((b): b is BlamedLine => !!b && b.commit !== null);
    lines.push(attribute(i + 1, earliest(candidates, steps), steps, tips.length > 0));
  }
  return { path: rel, lines };
}

/** The tips of the chains to follow: one session's, or every session's. */
export async function chainTips(
  ctx: Pick<WorkspaceContext, 'shadow'>,
  sessions: SessionState[],
  only?: string,
): Promise<string[]> {
  const shadow = await ctx.shadow();
  const tips: string[] = [];
  for (const s of sessions) {
    if (only !== undefined && s.header.id !== only) continue;
    const tip = await shadow.readRef(sessionRef(s.header.id));
    if (tip) tips.push(tip);
  }
  return tips;
}

/** The view's settings for the shadow repository of a workspace. */
export async function viewOf(ctx: Pick<WorkspaceContext, 'ws' | 'shadow'>) {
  const shadow = await ctx.shadow();
  return { gitDir: shadow.gitDir, workTree: ctx.ws.root, hooksDir: path.join(ctx.ws.dir, 'empty') };
}

async function readWorkingText(root: string, rel: string): Promise<Buffer> {
  const full = path.join(root, rel);
  const st = await lstat(full).catch(() => null);
  if (!st) throw new RetraceError('E_NOT_FOUND', `no file ${rel} in the workspace`);
  if (!st.isFile()) throw new RetraceError('E_INVALID_INPUT', `not a regular file: ${rel}`);
  // Read whole and handed to git: a generated giant is refused before it is read, not after.
  if (st.size > BLAME_MAX_BYTES)
    throw new RetraceError(
      'E_INVALID_INPUT',
      `${rel} is too large to blame (${st.size} bytes; at most ${BLAME_MAX_BYTES})`,
    );
  let bytes: Buffer;
  try {
    bytes = await readFile(full);
  } catch {
    throw new RetraceError('E_UNREADABLE', `cannot read ${rel}`);
  }
  if (isBinaryFileSync(bytes, bytes.length))
    throw new RetraceError('E_BINARY', `${rel} is a binary file: blame shows text lines only`);
  return bytes;
}

/** Every checkpoint message of every session, by hash (the first message that carries a hash names it). */
function stepsByHash(sessions: SessionState[]): Map<string, Step> {
  const map = new Map<string, Step>();
  for (const s of sessions) {
    const agent = agentOf(s.header.source);
    for (const m of s.messages) {
      if (!m.hash || map.has(m.hash)) continue;
      map.set(m.hash, { session: s.header.id, message: m.id, role: m.role, agent, at: Date.parse(m.ts) || 0 });
    }
  }
  return map;
}

/** The tips that are no ancestor of another tip: blaming a descendant already walks its ancestors' steps. */
async function independentTips(git: GitRunner, tips: string[]): Promise<string[]> {
  const unique = [...new Set(tips)];
  if (unique.length <= 1) return unique;
  const out = await git.raw(['merge-base', '--independent', ...unique]);
  return out.split('\n').filter((l) => /^[0-9a-f]{40}$/.test(l));
}

function earliest(candidates: BlamedLine[], steps: Map<string, Step>): BlamedLine | null {
  let best: BlamedLine | null = null;
  let bestAt = Infinity;
  for (const c of candidates) {
    const at = steps.get(c.commit!)?.at ?? c.time * 1000;
    if (at < bestAt) {
      best = c;
      bestAt = at;
    }
  }
  return best;
}

function attribute(line: number, b: BlamedLine | null, steps: Map<string, Step>, anyCheckpoint: boolean): BlameLine {
  const none = { hash: null, message: null, session: null, agent: null, role: null } as const;
  // No chain has the line: changed since the last checkpoint (or nothing was ever recorded: all baseline).
  if (!b) return { line, ...none, origin: anyCheckpoint ? 'person' : 'baseline' };
  if (b.boundary) return { line, ...none, origin: 'baseline' };
  const step = steps.get(b.commit!);
  // A commit no log names (its session was forgotten): its message's first line still says the role.
  const role = step?.role ?? roleFromSummary(b.summary);
  const origin = originOf(role, step?.agent ?? null);
  return {
    line,
    hash: b.commit,
    message: step?.message ?? null,
    session: step?.session ?? null,
    agent: origin === 'agent' ? (step?.agent ?? null) : null,
    role,
    origin,
  };
}

/** Agents whose own tools record checkpoints as system messages (Cline's "checkpoint_created"). */
const AGENT_SOURCES = new Set(['claude-code', 'codex', 'gemini', 'cline']);

/**
 * tool/assistant: an agent's step. user: a prompt's checkpoint, capturing what the person did between agent
 * steps. system: in an agent's session, a checkpoint its tool made after a step (Cline); in a cli or watch
 * session, a plain `retrace checkpoint` or a settled burst of file activity, which no agent step claims.
 */
function originOf(role: Role | null, agent: string | null): 'agent' | 'person' {
  if (role === 'tool' || role === 'assistant') return 'agent';
  if (role === 'system' && agent !== null && AGENT_SOURCES.has(agent)) return 'agent';
  return 'person';
}

function roleFromSummary(summary: string): Role | null {
  const m = /^(user|assistant|tool|system): /.exec(summary);
  return m ? (m[1] as Role) : null;
}

function countLines(bytes: Buffer): number {
  if (bytes.length === 0) return 0;
  let n = 0;
  for (const b of bytes) if (b === 0x0a) n++;
  return bytes[bytes.length - 1] === 0x0a ? n : n + 1;
}

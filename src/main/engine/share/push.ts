/**
 * `retrace push`: a session's chain, its log (as a commit under refs/retrace/logs/<id>) and the labels of its
 * checkpoints go to a git remote, with explicit refs/retrace/* refspecs only: the user's branches and tags are
 * never named, so never touched. A log that did not change keeps its commit, so pushing again sends nothing.
 */
import { readFile } from 'node:fs/promises';
import { RetraceError } from '../../../shared/errors';
import type { WorkspaceContext } from '../context';
import { GitError } from '../git/errors';
import { readRef, updateRef } from '../git/refs';
import type { GitRunner } from '../git/runner';
import { assertSessionId, sessionRef } from '../sessions/ids';
import { readPulled, type RecordedBy } from '../sessions/pulled';
import { LABELS, LOG_FILE, logRef, RECORDER_FILE, remoteConfig, shareRunner } from './refs';
import { whoIsPushing } from './remote';

export interface PushResult {
  pushed: string[];
  remote: string;
}

type Ctx = Pick<WorkspaceContext, 'ws' | 'sessions' | 'shadow'>;

/**
 * Make each session's log commit (the caller holds the writer lock: this writes objects and refs). Sessions that
 * were pulled keep the log commit they came with, and so their recorder. Returns the refspecs to push.
 */
export async function prepareLocked(ctx: Ctx, sessions: string[] | undefined): Promise<Map<string, string[]>> {
  const git = await shareRunner(ctx);
  const ids = sessions ?? ctx.sessions.ids();
  const pulled = readPulled(ctx.ws.dir);
  const me = await whoIsPushing(ctx.ws.root);
  const labels = await labelTargets(git);
  const out = new Map<string, string[]>();
  for (const id of ids) {
    assertSessionId(id);
    const state = await ctx.sessions.read(id); // E_UNKNOWN_SESSION for a name that is no session
    const tip = await readRef(git, sessionRef(id));
    if (!tip) continue; // no checkpoint yet: nothing a teammate could look at
    if (!pulled[id]) await writeLogCommit(git, id, await readFile(ctx.sessions.file(id)), me);
    else if (!(await readRef(git, logRef(id)))) continue; // its log commit is gone: nothing faithful to send
    const hashes = new Set(state.messages.map((m) => m.hash).filter((h): h is string => !!h));
    const refs = [sessionRef(id), logRef(id), ...labels.filter((l) => hashes.has(l.target)).map((l) => l.ref)];
    out.set(id, refs);
  }
  return out;
}

/** Push the prepared refs (no lock: pushing only reads the shadow repository). */
export async function pushRefs(ctx: Ctx, remote: string, bySession: Map<string, string[]>): Promise<PushResult> {
  if (bySession.size === 0) return { pushed: [], remote };
  const git = await shareRunner(ctx);
  // '+': these refs belong to the session's recorder; a teammate's copy is only ever replaced by a newer one.
  const specs = [...bySession.values()].flat().map((r) => `+${r}:${r}`);
  let report: string;
  try {
    report = (
      await git.exec([...remoteConfig(), 'push', '--porcelain', '--no-verify', remote, ...specs], { okExitCodes: [0] })
    ).stdout.toString('utf8');
  } catch (e) {
    throw remoteError('push to', remote, e);
  }
  const changed = new Set<string>();
  for (const line of report.split('\n')) {
    const m = /^(.)\t([^:]+):([^\t]+)\t/.exec(line);
    if (m && m[1] !== '=') changed.add(m[3]!);
  }
  const pushed = [...bySession].filter(([, refs]) => refs.some((r) => changed.has(r))).map(([id]) => id);
  return { pushed, remote };
}

export function remoteError(verb: string, remote: string, e: unknown): RetraceError {
  if (e instanceof RetraceError) return e;
  const why = e instanceof GitError ? e.message : String(e);
  return new RetraceError('E_REMOTE', `could not ${verb} ${remote}: ${why}`, { cause: e });
}

/** The log commit of a session: reused when its tree is the same, so pushing twice sends nothing new. */
async function writeLogCommit(git: GitRunner, id: string, log: Buffer, me: RecordedBy): Promise<string> {
  const blob = async (data: Buffer): Promise<string> =>
    (await git.exec(['hash-object', '-w', '--stdin'], { stdin: data })).stdout.toString('utf8').trim();
  const logBlob = await blob(log);
  const whoBlob = await blob(Buffer.from(JSON.stringify(me, null, 2) + '\n'));
  const tree = (
    await git.exec(['mktree'], {
      stdin: `100644 blob ${whoBlob}\t${RECORDER_FILE}\n100644 blob ${logBlob}\t${LOG_FILE}\n`,
    })
  ).stdout
    .toString('utf8')
    .trim();
  const old = await readRef(git, logRef(id));
  if (old) {
    const oldTree = (await git.exec(['rev-parse', `${old}^{tree}`])).stdout.toString('utf8').trim();
    if (oldTree === tree) return old;
  }
  const args = ['commit-tree', tree, ...(old ? ['-p', old] : []), '-m', `Retrace session log ${id}`];
  const commit = (await git.exec(args)).stdout.toString('utf8').trim();
  await updateRef(git, logRef(id), commit, old ?? null);
  return commit;
}

/** Every label and the checkpoint it names (an annotated tag peeled; a plain ref as is). */
async function labelTargets(git: GitRunner): Promise<{ ref: string; target: string }[]> {
  const out = await git.raw(['for-each-ref', '--format=%(refname) %(objectname) %(*objectname)', LABELS]);
  return out
    .split('\n')
    .map((l) => l.trim().split(' '))
    .filter((p) => p.length >= 2 && p[0]!.startsWith(LABELS))
    .map((p) => ({ ref: p[0]!, target: p[2] || p[1]! }));
}

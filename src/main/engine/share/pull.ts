/**
 * `retrace pull`: every session a remote holds under refs/retrace/ comes in read-only. Fetched into
 * refs/retrace/incoming/… first; then each session's log is written beside the workspace's own logs, its chain
 * ref set, and pulled.json says where it came from and who recorded it. The caller holds the writer lock.
 * A session of this workspace's own (pushed from here) is never overwritten by its copy on the remote.
 */
import { rename } from 'node:fs/promises';
import { readRef, listRefs, deleteRef, updateRef } from '../git/refs';
import type { GitRunner } from '../git/runner';
import type { WorkspaceContext } from '../context';
import { isValidSessionId, sessionRef } from '../sessions/ids';
import { readPulled, writePulled, type RecordedBy } from '../sessions/pulled';
import { mkdirPrivate, writeFilePrivate } from '../privateFs';
import { INCOMING, LABELS, LOG_FILE, logRef, RECORDER_FILE, remoteConfig, shareRunner } from './refs';
import { remoteError } from './push';

export interface PullResult {
  pulled: string[];
  remote: string;
}

type Ctx = Pick<WorkspaceContext, 'ws' | 'sessions' | 'shadow'>;

export async function pullLocked(ctx: Ctx, remote: string): Promise<PullResult> {
  const git = await shareRunner(ctx);
  await dropIncoming(git);
  try {
    const specs = ['sessions', 'logs', 'labels'].map((k) => `+refs/retrace/${k}/*:${INCOMING}${k}/*`);
    try {
      await git.exec([...remoteConfig(), 'fetch', '--no-tags', '--no-write-fetch-head', remote, ...specs]);
    } catch (e) {
      throw remoteError('pull from', remote, e);
    }
    const pulled = readPulled(ctx.ws.dir);
    const installed: string[] = [];
    for (const { ref, hash: log } of await listRefs(git, `${INCOMING}logs/`)) {
      const id = ref.slice(`${INCOMING}logs/`.length);
      if (!isValidSessionId(id)) continue;
      const tip = await readRef(git, `${INCOMING}sessions/${id}`);
      if (!tip) continue; // a log without its chain: nothing to show diffs of
      if (ctx.sessions.exists(id) && !pulled[id]) continue; // this workspace's own session
      if (pulled[id]?.log === log && (await readRef(git, sessionRef(id))) === tip) continue; // unchanged
      const content = await readBlob(git, `${log}:${LOG_FILE}`);
      const recordedBy = parseRecorder(await readBlob(git, `${log}:${RECORDER_FILE}`).catch(() => null));
      await writeLog(ctx, id, content);
      await updateRef(git, sessionRef(id), tip);
      await updateRef(git, logRef(id), log);
      pulled[id] = { remote, recordedBy, log, pulledAt: new Date().toISOString() };
      writePulled(ctx.ws.dir, pulled);
      installed.push(id);
    }
    // Labels: a name this workspace already has stays its own.
    for (const { ref, hash } of await listRefs(git, `${INCOMING}labels/`)) {
      const local = `${LABELS}${ref.slice(`${INCOMING}labels/`.length)}`;
      if (!(await refExists(git, local))) await updateRef(git, local, hash, null);
    }
    return { pulled: installed, remote };
  } finally {
    await dropIncoming(git);
  }
}

async function dropIncoming(git: GitRunner): Promise<void> {
  for (const { ref } of await listRefs(git, INCOMING)) await deleteRef(git, ref);
}

/** Any object (a label may be a tag object): rev-parse without peeling. */
async function refExists(git: GitRunner, ref: string): Promise<boolean> {
  const { exitCode } = await git.exec(['rev-parse', '--verify', '--quiet', ref], { okExitCodes: [0, 1] });
  return exitCode === 0;
}

async function readBlob(git: GitRunner, spec: string): Promise<Buffer> {
  return (await git.exec(['cat-file', 'blob', spec])).stdout;
}

function parseRecorder(bytes: Buffer | null): RecordedBy {
  try {
    const r = JSON.parse(bytes?.toString('utf8') ?? '') as Partial<RecordedBy>;
    const s = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
    return { name: s(r.name), email: s(r.email), host: s(r.host) ?? 'unknown host' };
  } catch {
    return { name: null, email: null, host: 'unknown host' };
  }
}

/** The log as it came, written whole then renamed into place (a reader sees the old log or the new one). */
async function writeLog(ctx: Ctx, id: string, content: Buffer): Promise<void> {
  await mkdirPrivate(ctx.sessions.dir);
  const file = ctx.sessions.file(id);
  const tmp = `${file}.${process.pid}.pull.tmp`;
  await writeFilePrivate(tmp, content);
  await rename(tmp, file);
}

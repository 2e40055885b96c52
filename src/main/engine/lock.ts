import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  type Dirent,
  promises as fs,
  linkSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pidAlive } from './pidAlive';
import { RetraceError } from '../../shared/errors';
import type { RecoveryReport } from '../../shared/model';
import { fault } from './faults';
import { fsError } from './shadow/fsErrors';
import { mkdirPrivateSync, openPrivateSync, writeFilePrivateSync } from './privateFs';
import type { WorkspaceRef } from './workspace';

/**
 * One writer per workspace across processes (PRODUCT.md I6). The lock is a file created exclusively (tryCreate)
 * in the workspace's data dir; its holder touches it every HEARTBEAT_MS. Taking over a lock (reported):
 *  - on this host, only when its pid is dead, or is alive but is another process (its start time, read from
 *    /proc where there is one, differs). A live holder is never robbed however long it is silent: a laptop
 *    asleep, a SIGSTOP, a starved event loop stop its heartbeat but not its next write (issue 10 item 5);
 *  - from another host (a shared folder), when its heartbeat stopped STALE_MS ago.
 * A holder checks its token before each step (assertLockHeld) and stops if its lock was taken over.
 * Readers never take this lock (I10); maintenance only tries it (tryWithLock).
 */
export const HEARTBEAT_MS = 2_000;
export const STALE_MS = 15_000;
/** A git lock file younger than this may belong to a git child that is still finishing: wait for it. */
const GIT_LOCK_GRACE_MS = 2_000;

export interface LockOptions {
  /** How long to wait for another writer; default 10 s. */
  waitMs?: number;
  /** Called once when the lock is busy and we start waiting. */
  onWait?: () => void;
  /** Shown to other writers ("retrace checkpoint"). */
  command?: string;
}

export interface HeldLock {
  release(): Promise<void>;
  recovered: RecoveryReport[];
  /** What identifies this holding in the lock file (assertLockHeld compares it). */
  token: string;
}

interface LockInfo {
  pid: number;
  /** The pid's start time (field 22 of /proc/PID/stat) where readable: tells a reused pid from the holder. */
  pidStart?: string;
  hostname: string;
  command: string;
  startedAt: string;
  token: string;
}

export function lockPath(ws: WorkspaceRef): string {
  return path.join(ws.dir, 'writer.lock');
}

/** Locks this process holds, released synchronously if the process exits with them. */
const held = new Map<string, string>();
let exitHookInstalled = false;

/** Within one process, writers of a workspace queue here instead of polling the file. */
const inProcess = new Map<string, Promise<void>>();

/** The locks the current async call chain holds (withLock): what lets a git failure tell writer from reader. */
const holding = new AsyncLocalStorage<ReadonlyMap<string, string>>();

export async function acquireLock(ws: WorkspaceRef, opts: LockOptions = {}): Promise<HeldLock> {
  const file = lockPath(ws);
  const waitMs = opts.waitMs ?? 10_000;
  const deadline = Date.now() + waitMs;

  // Serialise same-process callers first (bounded by the same deadline).
  const before = inProcess.get(file) ?? Promise.resolve();
  let releaseLocal!: () => void;
  const mine = new Promise<void>((r) => (releaseLocal = r));
  const chained = before.then(() => mine);
  inProcess.set(file, chained);
  const cleanupLocal = (): void => {
    releaseLocal();
    if (inProcess.get(file) === chained) inProcess.delete(file);
  };
  try {
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      before.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), Math.max(0, deadline - Date.now())))),
    ]);
    clearTimeout(timer);
    if (!waited) throw await lockedError(file, waitMs);
    const result = await acquireFile(ws, file, deadline, waitMs, opts);
    const release = result.release;
    return {
      recovered: result.recovered,
      token: result.token,
      release: async () => {
        try {
          await release();
        } finally {
          cleanupLocal();
        }
      },
    };
  } catch (e) {
    cleanupLocal();
    throw e;
  }
}

export async function withLock<T>(
  ws: WorkspaceRef,
  fn: (recovered: RecoveryReport[]) => Promise<T>,
  opts?: LockOptions,
): Promise<T> {
  const lock = await acquireLock(ws, opts);
  try {
    const outer = holding.getStore() ?? new Map<string, string>();
    const mine = new Map(outer).set(lockPath(ws), lock.token);
    return await holding.run(mine, () => fn(lock.recovered));
  } finally {
    await lock.release();
  }
}

/**
 * Run `fn` as the writer only if the lock is free right now (maintenance): never waits, never queues behind
 * another writer of this process. `ran: false` when someone else writes.
 */
export async function tryWithLock<T>(
  ws: WorkspaceRef,
  fn: (recovered: RecoveryReport[]) => Promise<T>,
  opts: Omit<LockOptions, 'waitMs' | 'onWait'> = {},
): Promise<{ ran: true; value: T } | { ran: false; holder: string }> {
  const file = lockPath(ws);
  if (inProcess.has(file)) return { ran: false, holder: 'this process' };
  try {
    return { ran: true, value: await withLock(ws, fn, { ...opts, waitMs: 0 }) };
  } catch (e) {
    if (e instanceof RetraceError && e.code === 'E_LOCKED' && !(e as { lost?: boolean }).lost)
      return { ran: false, holder: e.message };
    throw e;
  }
}

/** Whether a live writer holds the workspace's lock right now (read-only; readers use it to stay out of its way). */
export async function writerBusy(ws: WorkspaceRef): Promise<boolean> {
  const file = lockPath(ws);
  const other = await readLock(file);
  return other !== null && (await whyStale(other.info, other.mtimeMs)) === null;
}

/** Why the workspace's lock file is stale (its holder is gone), or null when there is none or it is live. */
export async function staleLockReason(ws: WorkspaceRef): Promise<string | null> {
  const file = lockPath(ws);
  const other = await readLock(file);
  const why = other ? await whyStale(other.info, other.mtimeMs) : null;
  return other && why ? `the lock of ${describe(other.info)} to take over: ${why}` : null;
}

/** True when the current call chain runs under this workspace's writer lock (inside withLock). */
export function holdsLock(ws: WorkspaceRef): boolean {
  return holding.getStore()?.has(lockPath(ws)) === true;
}

/**
 * A writer calls this before each step that changes shared state: if its lock was taken over meanwhile (a
 * holder on another host declared it stale, someone removed the file), it stops here with E_LOCKED instead
 * of writing alongside the new holder. Outside withLock it does nothing (readers write nothing shared).
 */
export function assertLockHeld(ws: WorkspaceRef): void {
  const file = lockPath(ws);
  const token = holding.getStore()?.get(file);
  if (token === undefined) return;
  let now: LockInfo | null = null;
  try {
    now = JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
  } catch {
    now = null;
  }
  if (now?.token === token) return;
  const err = new RetraceError(
    'E_LOCKED',
    `this writer's workspace lock was taken over${now ? ` by ${describe(now)}` : ' (the lock file is gone)'}; stopped before writing more`,
  );
  (err as { lost?: boolean }).lost = true;
  throw err;
}

const MAX_POLL_MS = 50;
/** `writer.lock.staged-<token>`: a lock's content before it is linked into place. */
const STAGED_INFIX = '.staged-';

/** This process's start time (it never changes): read once, not per lock. */
let ownStart: { value: string | null } | undefined;

async function acquireFile(
  ws: WorkspaceRef,
  file: string,
  deadline: number,
  waitMs: number,
  opts: LockOptions,
): Promise<HeldLock> {
  try {
    mkdirPrivateSync(ws.dir);
  } catch (e) {
    throw new RetraceError('E_DATA_DIR', `cannot create ${ws.dir}: ${(e as Error).message}`);
  }
  const recovered: RecoveryReport[] = [];
  let delay = 25;
  let waitingReported = false;
  const pidStart = (ownStart ??= { value: processStart(process.pid) }).value;
  const info: LockInfo = {
    pid: process.pid,
    ...(pidStart ? { pidStart } : {}),
    hostname: os.hostname(),
    command: opts.command ?? defaultCommand(),
    startedAt: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };

  for (;;) {
    if (tryCreate(file, info)) break;
    const other = await readLock(file);
    const staleReason = other ? await whyStale(other.info, other.mtimeMs) : null;
    if (other && staleReason) {
      if (await removeIfUnchanged(file, other.raw)) {
        recovered.push(report('stale-lock-removed', `removed the lock of ${describe(other.info)}: ${staleReason}`));
      }
      continue;
    }
    if (Date.now() >= deadline) throw await lockedError(file, waitMs);
    if (!waitingReported) {
      waitingReported = true;
      opts.onWait?.();
    }
    await sleep(Math.min(delay, Math.max(1, deadline - Date.now())));
    // At most 50 ms between tries, however long we waited: with a longer backoff the writer that waited longest
    // polled least often and lost every release to newer arrivals (4 writers under load: one gave up after 10 s).
    delay = Math.min(delay * 2, MAX_POLL_MS);
  }

  held.set(file, info.token);
  installExitHook();
  // Holding the writer lock, no other process of ours writes the shadow repository: a git lock file there was
  // left by a git child that died (the OOM killer) or a dead writer (issue 10 item 4). Without this, every
  // later checkpoint and restore fails on it for good.
  recovered.push(...(await clearGitLocks(path.join(ws.dir, 'shadow.git'))));
  recovered.push(...(await clearStagedLocks(ws)));
  let lost = false;
  const timer = setInterval(() => {
    const now = new Date();
    fs.utimes(file, now, now).catch(() => {
      lost = true; // someone removed our lock; release() will not remove theirs
    });
  }, HEARTBEAT_MS);
  timer.unref();

  let released = false;
  return {
    recovered,
    token: info.token,
    release: async () => {
      if (released) return;
      released = true;
      clearInterval(timer);
      held.delete(file);
      if (lost) return;
      // Plain system calls: every hook call releases a lock, and these are two short ones.
      if (lockToken(file) === info.token) {
        try {
          unlinkSync(file);
        } catch {
          // Gone already.
        }
      }
    },
  };
}

/**
 * Create the lock file with its content already in it, or return false when it exists. The content is written
 * to a file of its own beside it (named by the token, so no two writers share one, on any host), then
 * hard-linked into place: link(2) fails with EEXIST like O_EXCL, but the lock never exists empty. Created with
 * O_EXCL and then written, a writer killed between the two calls (a SIGKILL, the OOM killer) left an empty lock
 * that names no pid, which only its age (STALE_MS) could clear: every writer after it gave up with E_LOCKED for
 * 15 s. Where the file system has no hard links, O_EXCL.
 */
function tryCreate(file: string, info: LockInfo): boolean {
  const staged = `${file}${STAGED_INFIX}${info.token}`;
  try {
    writeFilePrivateSync(staged, JSON.stringify(info) + '\n', { flag: 'wx' });
  } catch (e) {
    throw cannotCreate(file, e);
  }
  try {
    fault('lock:staged');
    linkSync(staged, file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOENT') return false; // held; or our staged copy swept away: try again
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP')
      return tryCreateExclusive(file, info);
    throw cannotCreate(file, e);
  } finally {
    try {
      unlinkSync(staged);
    } catch {
      // Gone already.
    }
  }
}

/** A lock that cannot be made: a full disk is said so (E_NO_SPACE, as CLI.md names it); anything else is the data folder's. */
function cannotCreate(file: string, e: unknown): unknown {
  const errno = (e as NodeJS.ErrnoException).code;
  if (errno === 'ENOSPC' || errno === 'EDQUOT') return fsError(e, `the lock ${file}`, 'create');
  return new RetraceError('E_DATA_DIR', `cannot create the lock ${file}: ${(e as Error).message}`);
}

function tryCreateExclusive(file: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openPrivateSync(file, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannotCreate(file, e);
  }
  try {
    writeSync(fd, JSON.stringify(info) + '\n');
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Staged lock contents (tryCreate) left by writers killed before they removed them: judged as a lock file is
 * (whyStale): gone when its pid on this host is dead, or, from another host or too torn to name one, when it
 * is older than STALE_MS. A live writer's own is left alone.
 */
export async function deadStagedLocks(ws: WorkspaceRef): Promise<string[]> {
  const prefix = path.basename(lockPath(ws)) + STAGED_INFIX;
  let names: string[] = [];
  try {
    names = readdirSync(ws.dir).filter((n) => n.startsWith(prefix));
  } catch {
    return [];
  }
  const dead: string[] = [];
  for (const n of names) {
    const staged = await readLock(path.join(ws.dir, n));
    if (staged && (await whyStale(staged.info, staged.mtimeMs)) !== null) dead.push(n);
  }
  return dead;
}

/** Remove the dead writers' staged lock contents once we hold the lock (reported: a crash left them). */
async function clearStagedLocks(ws: WorkspaceRef): Promise<RecoveryReport[]> {
  const out: RecoveryReport[] = [];
  for (const n of await deadStagedLocks(ws)) {
    try {
      unlinkSync(path.join(ws.dir, n));
      out.push(report('stale-lock-removed', `removed ${n}: its writer died while taking the lock`));
    } catch {
      // Removed by another writer's sweep.
    }
  }
  return out;
}

/** The token in the lock file now (null: none, or not ours to read). */
/** The token of whoever holds the lock file now (null: none, or unreadable). */
export function lockToken(file: string): string | null {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as LockInfo).token ?? null;
  } catch {
    return null;
  }
}

async function readLock(file: string): Promise<{ info: LockInfo; raw: string; mtimeMs: number } | null> {
  try {
    const [raw, st] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    let info: LockInfo;
    try {
      info = JSON.parse(raw) as LockInfo;
    } catch {
      // Being written right now, or garbage left by a crash: only its age can tell.
      info = { pid: 0, hostname: '', command: 'unknown', startedAt: new Date(st.mtimeMs).toISOString(), token: '' };
    }
    return { info, raw, mtimeMs: st.mtimeMs };
  } catch {
    return null; // vanished: the next create attempt decides
  }
}

async function whyStale(info: LockInfo, mtimeMs: number): Promise<string | null> {
  const age = Date.now() - mtimeMs;
  if (info.hostname === os.hostname() && info.pid > 0) {
    if (!pidAlive(info.pid)) return 'the process is gone';
    const start = info.pidStart ? processStart(info.pid) : null;
    if (start !== null && start !== info.pidStart) return 'the process is gone (its pid now names another one)';
    return null; // alive: never stolen, however long its heartbeat has been silent
  }
  // Another host (its pids mean nothing here), or a lock file too garbled to name its pid: only age tells.
  if (age > STALE_MS) return `no heartbeat for ${Math.round(age / 1000)} s`;
  return null;
}

/** A process's start time in clock ticks since boot (Linux /proc), or null where that cannot be read. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22 overall = index 19 after pid, comm
  } catch {
    return null;
  }
}

/**
 * Remove a stale lock only if it is still the one we judged stale: two waiters may both see it stale, and the
 * first one's fresh lock must not be removed by the second. A short-lived O_EXCL guard makes check+remove atomic.
 */
async function removeIfUnchanged(file: string, raw: string): Promise<boolean> {
  const guard = `${file}.takeover`;
  let fd: number;
  try {
    fd = openPrivateSync(guard, 'wx');
    closeSync(fd);
  } catch {
    const st = await fs.stat(guard).catch(() => null);
    if (st && Date.now() - st.mtimeMs > 5_000) await fs.unlink(guard).catch(() => {});
    await sleep(20);
    return false;
  }
  try {
    const now = await fs.readFile(file, 'utf8').catch(() => null);
    if (now !== raw) return false;
    await fs.unlink(file);
    return true;
  } finally {
    await fs.unlink(guard).catch(() => {});
  }
}

/**
 * Git lock files in the shadow repository when we have just taken the writer lock: nobody else may be writing
 * it, so each was left by a git child that died with or without its writer. One younger than the grace may
 * be a dead writer's git child still finishing (it outlives its parent by a moment): it gets until the grace
 * is over to finish and remove its own lock. What is left then is removed and reported.
 */
async function clearGitLocks(gitDir: string): Promise<RecoveryReport[]> {
  let locks = await findGitLocks(gitDir);
  if (locks.length === 0) return [];
  const deadline = Date.now() + GIT_LOCK_GRACE_MS;
  for (;;) {
    const young = await Promise.all(
      locks.map(async (l) => {
        const st = await fs.lstat(l).catch(() => null);
        return st !== null && Date.now() - st.mtimeMs < GIT_LOCK_GRACE_MS;
      }),
    );
    if (!young.some(Boolean) || Date.now() >= deadline) break;
    await sleep(100);
    locks = await findGitLocks(gitDir);
  }
  const out: RecoveryReport[] = [];
  for (const l of locks) {
    const age = await fs.lstat(l).then(
      (st) => `${Math.round((Date.now() - st.mtimeMs) / 1000)} s old`,
      () => null,
    );
    if (age === null) continue; // its git finished after all
    await fs.unlink(l).catch(() => {});
    out.push(
      report('git-lock-removed', `removed ${path.relative(gitDir, l)} (${age}) left by a git process that died`),
    );
  }
  return out;
}

function findGitLocks(gitDir: string): Promise<string[]> {
  const found: string[] = [];
  // index.lock, HEAD.lock, packed-refs.lock, config.lock, … at the top; ref locks under refs/; commit-graph
  // and multi-pack-index locks under objects/info/.
  // Plain system calls: a handful of small folders, looked at on every lock (each hook call takes one).
  const inDir = (dir: string, recurse: boolean): void => {
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (recurse) inDir(p, true);
      } else if (e.name.endsWith('.lock')) found.push(p);
    }
  };
  inDir(gitDir, false);
  inDir(path.join(gitDir, 'refs'), true);
  inDir(path.join(gitDir, 'objects', 'info'), false);
  return Promise.resolve(found);
}

async function lockedError(file: string, waitMs: number): Promise<RetraceError> {
  const other = await readLock(file);
  const who = other ? describe(other.info) : 'another process';
  return new RetraceError(
    'E_LOCKED',
    `workspace is locked by ${who}; gave up after ${Math.round(waitMs / 100) / 10} s`,
  );
}

function describe(info: LockInfo): string {
  return `pid ${info.pid} (${info.command}) since ${info.startedAt}`;
}

function report(kind: RecoveryReport['kind'], detail: string): RecoveryReport {
  return { ts: new Date().toISOString(), kind, detail };
}

function defaultCommand(): string {
  const [script, cmd] = process.argv.slice(1);
  const name = script ? path.basename(script).replace(/\.(c|m)?[jt]s$/, '') : 'node';
  return cmd && !cmd.startsWith('-') ? `${name} ${cmd}` : name;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [file, token] of held) {
      try {
        const info = JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
        if (info.token === token) unlinkSync(file);
      } catch {
        // already gone
      }
    }
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

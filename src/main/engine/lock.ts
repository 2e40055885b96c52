import { randomBytes } from 'node:crypto';
import { closeSync, promises as fs, readFileSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RetraceError } from '../../shared/errors';
import type { RecoveryReport } from '../../shared/model';
import { mkdirPrivate, openPrivateSync } from './privateFs';
import type { WorkspaceRef } from './workspace';

/**
 * One writer per workspace across processes (PRODUCT.md I6). The lock is a file created with O_EXCL in the
 * workspace's data dir; its holder touches it every HEARTBEAT_MS. A lock whose pid is dead on this host, or
 * whose heartbeat stopped STALE_MS ago, is taken over and reported.
 */
export const HEARTBEAT_MS = 2_000;
export const STALE_MS = 15_000;
const GIT_LOCK_GRACE_MS = 3_000;

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
}

interface LockInfo {
  pid: number;
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
    return await fn(lock.recovered);
  } finally {
    await lock.release();
  }
}

async function acquireFile(
  ws: WorkspaceRef,
  file: string,
  deadline: number,
  waitMs: number,
  opts: LockOptions,
): Promise<HeldLock> {
  try {
    await mkdirPrivate(ws.dir);
  } catch (e) {
    throw new RetraceError('E_DATA_DIR', `cannot create ${ws.dir}: ${(e as Error).message}`);
  }
  const recovered: RecoveryReport[] = [];
  let delay = 25;
  let waitingReported = false;
  const info: LockInfo = {
    pid: process.pid,
    hostname: os.hostname(),
    command: opts.command ?? defaultCommand(),
    startedAt: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };

  for (;;) {
    if (tryCreate(file, info)) break;
    const other = await readLock(file);
    const staleReason = other ? await whyStale(file, other.info, other.mtimeMs) : null;
    if (other && staleReason) {
      if (await removeIfUnchanged(file, other.raw)) {
        recovered.push(report('stale-lock-removed', `removed the lock of ${describe(other.info)}: ${staleReason}`));
        recovered.push(...(await clearGitLocks(path.join(ws.dir, 'shadow.git'))));
      }
      continue;
    }
    if (Date.now() >= deadline) throw await lockedError(file, waitMs);
    if (!waitingReported) {
      waitingReported = true;
      opts.onWait?.();
    }
    await sleep(Math.min(delay, Math.max(1, deadline - Date.now())));
    delay = Math.min(delay * 2, 500);
  }

  held.set(file, info.token);
  installExitHook();
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
    release: async () => {
      if (released) return;
      released = true;
      clearInterval(timer);
      held.delete(file);
      if (lost) return;
      const current = await readLock(file);
      if (current?.info.token === info.token) await fs.unlink(file).catch(() => {});
    },
  };
}

function tryCreate(file: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openPrivateSync(file, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new RetraceError('E_DATA_DIR', `cannot create the lock ${file}: ${(e as Error).message}`);
  }
  try {
    writeSync(fd, JSON.stringify(info) + '\n');
  } finally {
    closeSync(fd);
  }
  return true;
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

async function whyStale(_file: string, info: LockInfo, mtimeMs: number): Promise<string | null> {
  const age = Date.now() - mtimeMs;
  if (info.hostname === os.hostname() && info.pid > 0 && !isAlive(info.pid)) return 'the process is gone';
  if (age > STALE_MS) return `no heartbeat for ${Math.round(age / 1000)} s`;
  return null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
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
 * A dead writer's git child may still be finishing and hold index.lock or a ref lock. Give it a moment, then
 * remove what is left: nobody else can be writing the shadow repository while we hold the workspace lock.
 */
async function clearGitLocks(gitDir: string): Promise<RecoveryReport[]> {
  const deadline = Date.now() + GIT_LOCK_GRACE_MS;
  let locks = await findGitLocks(gitDir);
  while (locks.length > 0 && Date.now() < deadline) {
    await sleep(100);
    locks = await findGitLocks(gitDir);
  }
  const out: RecoveryReport[] = [];
  for (const l of locks) {
    await fs.unlink(l).catch(() => {});
    out.push(report('git-lock-removed', `removed ${path.relative(gitDir, l)} left by a dead writer`));
  }
  return out;
}

async function findGitLocks(gitDir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of ['index.lock', 'HEAD.lock', 'packed-refs.lock', 'config.lock', 'shallow.lock']) {
    const p = path.join(gitDir, name);
    if (
      await fs.lstat(p).then(
        () => true,
        () => false,
      )
    )
      found.push(p);
  }
  const walk = async (dir: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name.endsWith('.lock')) found.push(p);
    }
  };
  await walk(path.join(gitDir, 'refs'));
  return found;
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

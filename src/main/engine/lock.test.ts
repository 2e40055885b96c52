import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetraceError } from '../../shared/errors';
import { acquireLock, assertLockHeld, holdsLock, lockPath, tryWithLock, withLock } from './lock';
import type { WorkspaceRef } from './workspace';

const lockModule = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lock.ts');

/** A child process that takes the lock, logs enter/leave around a pause, and exits (or hangs with HOLD). */
const CHILD = `
import { appendFileSync } from 'node:fs';
import { acquireLock } from ${JSON.stringify(lockModule)};
const [dir, log, holdMs, hang] = process.argv.slice(2);
const ws = { root: dir, id: 'x', name: 'x', dir, dataHome: dir, caseInsensitive: false };
const lock = await acquireLock(ws, { waitMs: 30000, command: 'test child' });
appendFileSync(log, 'enter ' + process.pid + ' ' + JSON.stringify(lock.recovered.map((r) => r.kind)) + '\\n');
console.log('locked');
await new Promise((r) => setTimeout(r, Number(holdMs)));
if (hang === 'hang') await new Promise(() => setInterval(() => {}, 1000));
appendFileSync(log, 'leave ' + process.pid + '\\n');
await lock.release();
`;

function runChild(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
}
function waitLocked(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => b.toString().includes('locked') && resolve());
    child.on('exit', (c) => reject(new Error(`child exited ${c}`)));
  });
}
function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => child.on('exit', (c) => r(c)));
}

describe('workspace lock (I6)', () => {
  let tmp: string;
  let script: string;
  let n = 0;
  const ws = (): WorkspaceRef => {
    const dir = path.join(tmp, `ws${++n}`);
    return { root: dir, id: 'x', name: 'x', dir, dataHome: tmp, caseInsensitive: false };
  };
  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'retrace-lock-'));
    script = path.join(tmp, 'child.mts');
    await fs.writeFile(script, CHILD);
  });
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

  it('lets exactly one of 4 concurrent processes in at a time', async () => {
    const w = ws();
    await fs.mkdir(w.dir, { recursive: true });
    const log = path.join(tmp, 'concurrent.log');
    const kids = Array.from({ length: 4 }, () => runChild(script, [w.dir, log, '150']));
    expect(await Promise.all(kids.map(exited))).toEqual([0, 0, 0, 0]);
    const lines = (await fs.readFile(log, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(8);
    for (let i = 0; i < 8; i += 2) {
      const [a, pidA] = lines[i]!.split(' ');
      const [b, pidB] = lines[i + 1]!.split(' ');
      expect([a, b]).toEqual(['enter', 'leave']);
      expect(pidA).toBe(pidB);
    }
    await expect(fs.access(lockPath(w))).rejects.toThrow();
  });

  it('recovers the lock of a SIGKILLed holder and the git locks it left', async () => {
    const w = ws();
    await fs.mkdir(path.join(w.dir, 'shadow.git', 'refs', 'retrace'), { recursive: true });
    const log = path.join(tmp, 'killed.log');
    const holder = runChild(script, [w.dir, log, '0', 'hang']);
    await waitLocked(holder);
    // what a git child of the holder could leave behind
    await fs.writeFile(path.join(w.dir, 'shadow.git', 'index.lock'), '');
    await fs.writeFile(path.join(w.dir, 'shadow.git', 'refs', 'retrace', 's.lock'), '');
    const done = exited(holder);
    holder.kill('SIGKILL');
    await done;
    const t0 = Date.now();
    const lock = await acquireLock(w, { waitMs: 10_000 });
    expect(Date.now() - t0).toBeLessThan(8_000);
    expect(lock.recovered.map((r) => r.kind).sort()).toEqual([
      'git-lock-removed',
      'git-lock-removed',
      'stale-lock-removed',
    ]);
    expect(lock.recovered[0]!.detail).toContain(`pid ${holder.pid}`);
    await expect(fs.access(path.join(w.dir, 'shadow.git', 'index.lock'))).rejects.toThrow();
    await lock.release();
  });

  it('gives E_LOCKED naming the holder after the bounded wait', async () => {
    const w = ws();
    await fs.mkdir(w.dir, { recursive: true });
    const holder = runChild(script, [w.dir, path.join(tmp, 'held.log'), '0', 'hang']);
    try {
      await waitLocked(holder);
      let waited = 0;
      const t0 = Date.now();
      const err = await acquireLock(w, { waitMs: 600, onWait: () => waited++ }).catch((e: unknown) => e);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(550);
      expect(err).toBeInstanceOf(RetraceError);
      expect((err as RetraceError).code).toBe('E_LOCKED');
      expect((err as RetraceError).message).toMatch(
        new RegExp(`locked by pid ${holder.pid} \\(test child\\) since \\d{4}-`),
      );
      expect(waited).toBe(1);
    } finally {
      const done = exited(holder);
      holder.kill('SIGKILL');
      await done;
    }
  });

  it('treats a lock with a live pid but no heartbeat for 15 s as stale, and a fresh foreign one as held', async () => {
    const w = ws();
    await fs.mkdir(w.dir, { recursive: true });
    const info = {
      pid: process.pid,
      hostname: 'another-host',
      command: 'retrace serve',
      startedAt: 'then',
      token: 't',
    };
    await fs.writeFile(lockPath(w), JSON.stringify(info));
    const busy = await acquireLock(w, { waitMs: 200 }).catch((e: unknown) => e);
    expect((busy as RetraceError).code).toBe('E_LOCKED');
    const old = new Date(Date.now() - 20_000);
    await fs.utimes(lockPath(w), old, old);
    const lock = await acquireLock(w, { waitMs: 200 });
    expect(lock.recovered.map((r) => r.kind)).toEqual(['stale-lock-removed']);
    expect(lock.recovered[0]!.detail).toContain('no heartbeat');
    await lock.release();
  });

  it('never robs a live holder that stopped (SIGSTOP): E_LOCKED naming it, its lock intact', async () => {
    const w = ws();
    await fs.mkdir(w.dir, { recursive: true });
    const holder = runChild(script, [w.dir, path.join(tmp, 'stopped.log'), '0', 'hang']);
    try {
      await waitLocked(holder);
      const before = await fs.readFile(lockPath(w), 'utf8');
      holder.kill('SIGSTOP');
      // What 15+ s of a stopped process (a laptop asleep, a starved event loop) looks like: no heartbeat.
      const old = new Date(Date.now() - 60_000);
      await fs.utimes(lockPath(w), old, old);
      const err = await acquireLock(w, { waitMs: 800 }).catch((e: unknown) => e);
      expect((err as RetraceError).code).toBe('E_LOCKED');
      expect((err as RetraceError).message).toContain(`pid ${holder.pid} (test child)`);
      expect(await fs.readFile(lockPath(w), 'utf8')).toBe(before);
      expect((await tryWithLock(w, async () => 'ran')).ran).toBe(false);
      holder.kill('SIGCONT');
    } finally {
      const done = exited(holder);
      holder.kill('SIGKILL');
      await done;
    }
  });

  it('takes over a lock whose pid now names another process (start time differs)', async () => {
    const w = ws();
    await fs.mkdir(w.dir, { recursive: true });
    const start = await fs.readFile(`/proc/${process.pid}/stat`, 'utf8').catch(() => null);
    if (start === null) return; // no /proc here: pid alive is all this platform can tell (the test above)
    const info = {
      pid: process.pid,
      pidStart: '1',
      hostname: os.hostname(),
      command: 'old',
      startedAt: 'then',
      token: 't',
    };
    await fs.writeFile(lockPath(w), JSON.stringify(info));
    const lock = await acquireLock(w, { waitMs: 500 });
    expect(lock.recovered.map((r) => r.kind)).toEqual(['stale-lock-removed']);
    expect(lock.recovered[0]!.detail).toContain('another one');
    await lock.release();
  });

  it('a holder whose lock was taken over stops before its next step', async () => {
    const w = ws();
    await fs.mkdir(w.dir, { recursive: true });
    expect(holdsLock(w)).toBe(false);
    const err = await withLock(w, async () => {
      expect(holdsLock(w)).toBe(true);
      assertLockHeld(w); // still ours
      const other = { pid: 1, hostname: 'elsewhere', command: 'retrace serve', startedAt: 'now', token: 'theirs' };
      await fs.writeFile(lockPath(w), JSON.stringify(other));
      assertLockHeld(w);
      return 'went on';
    }).catch((e: unknown) => e);
    expect((err as RetraceError).code).toBe('E_LOCKED');
    expect((err as RetraceError).message).toMatch(/taken over by pid 1 \(retrace serve\).*stopped/);
    // Its release left the new holder's lock alone.
    expect(JSON.parse(await fs.readFile(lockPath(w), 'utf8')).token).toBe('theirs');
  });

  it('try-lock: runs when free, skips at once when another process writes', async () => {
    const w = ws();
    await fs.mkdir(w.dir, { recursive: true });
    expect(await tryWithLock(w, async () => 42)).toEqual({ ran: true, value: 42 });
    const holder = runChild(script, [w.dir, path.join(tmp, 'try.log'), '0', 'hang']);
    try {
      await waitLocked(holder);
      const t0 = Date.now();
      const r = await tryWithLock(w, async () => 42);
      expect(r.ran).toBe(false);
      expect(Date.now() - t0).toBeLessThan(500);
    } finally {
      const done = exited(holder);
      holder.kill('SIGKILL');
      await done;
    }
  });

  it('removes a git lock file a killed git child left while its writer lived on (issue 10 item 4)', async () => {
    const w = ws();
    const git = path.join(w.dir, 'shadow.git');
    await fs.mkdir(path.join(git, 'refs', 'retrace', 'sessions'), { recursive: true });
    // The OOM killer took only git: its writer released the workspace lock normally, index.lock stayed.
    await fs.writeFile(path.join(git, 'index.lock'), '');
    await fs.writeFile(path.join(git, 'refs', 'retrace', 'sessions', 's.lock'), '');
    const old = new Date(Date.now() - 30_000);
    await fs.utimes(path.join(git, 'index.lock'), old, old);
    await fs.utimes(path.join(git, 'refs', 'retrace', 'sessions', 's.lock'), old, old);
    const lock = await acquireLock(w, { waitMs: 1000 });
    expect(lock.recovered.map((r) => r.kind)).toEqual(['git-lock-removed', 'git-lock-removed']);
    expect(lock.recovered[0]!.detail).toMatch(/index\.lock \(\d+ s old\)/);
    await expect(fs.access(path.join(git, 'index.lock'))).rejects.toThrow();
    await lock.release();
    // A young one may be a git child still finishing: it gets the grace to remove its own lock.
    await fs.writeFile(path.join(git, 'index.lock'), '');
    setTimeout(() => void fs.rm(path.join(git, 'index.lock')), 300);
    const again = await acquireLock(w, { waitMs: 1000 });
    expect(again.recovered).toEqual([]);
    await again.release();
  });

  it('serialises writers inside one process and releases on throw', async () => {
    const w = ws();
    const order: string[] = [];
    const job = (name: string) =>
      withLock(w, async () => {
        order.push(`+${name}`);
        await new Promise((r) => setTimeout(r, 30));
        order.push(`-${name}`);
        if (name === 'b') throw new Error('boom');
      });
    const results = await Promise.allSettled([job('a'), job('b'), job('c')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(order).toEqual(['+a', '-a', '+b', '-b', '+c', '-c']);
    await expect(fs.access(lockPath(w))).rejects.toThrow();
  });

  it('a writer killed while taking the lock leaves no lock, only a staged copy the next writer removes', async () => {
    const w = ws();
    await fs.mkdir(w.dir, { recursive: true });
    const dead = spawn(process.execPath, ['-e', '']);
    await exited(dead);
    const staged = (name: string, info: object | string): Promise<void> =>
      fs.writeFile(`${lockPath(w)}.staged-${name}`, typeof info === 'string' ? info : JSON.stringify(info));
    const me = { hostname: os.hostname(), command: 'test', startedAt: new Date().toISOString(), token: 't' };
    await staged('dead', { ...me, pid: dead.pid }); // its writer is gone: removed
    await staged('live', { ...me, pid: process.pid }); // a live writer's, about to be linked: kept
    await staged('torn', ''); // torn, young: only its age can tell, kept
    await staged('other-host', { ...me, hostname: 'elsewhere', pid: dead.pid }); // its pid means nothing here: kept
    const old = new Date(Date.now() - 60_000);
    await staged('torn-old', '');
    await fs.utimes(`${lockPath(w)}.staged-torn-old`, old, old); // torn and old: removed
    const lock = await acquireLock(w, { waitMs: 1000 });
    expect(lock.recovered.map((r) => r.kind)).toEqual(['stale-lock-removed', 'stale-lock-removed']);
    const left = (await fs.readdir(w.dir)).filter((n) => n.includes('.staged-')).sort();
    expect(left).toEqual(['writer.lock.staged-live', 'writer.lock.staged-other-host', 'writer.lock.staged-torn']);
    // What is in place names its holder from the first moment it exists.
    expect(JSON.parse(await fs.readFile(lockPath(w), 'utf8'))).toMatchObject({ pid: process.pid, token: lock.token });
    await lock.release();
  });
});

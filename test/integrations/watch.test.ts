/**
 * `retrace watch DIR` as a real process on a real folder: bursts of edits become one checkpoint each, excluded
 * paths wake nothing, the writer lock is held only while checkpointing, and the idle process costs (almost) no
 * CPU. Checkpoints are counted from the process's own lines and checked in the workspace's log.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/main/engine/lock';
import { resolveWorkspace } from '../../src/main/engine/workspace';
import { cleanupTempDirs, cliJson, errorCode, runCli, spawnCli, tempDir, tempHome, type CliResult } from '../helpers';

const QUIET_MS = 700;
const running: { stop: () => Promise<CliResult> }[] = [];
afterEach(async () => {
  for (const w of running.splice(0)) await w.stop();
});
afterAll(cleanupTempDirs);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startWatch(ws: string, home: string, extra: string[] = []) {
  const { child, done } = spawnCli(['watch', ws, '--quiet-ms', String(QUIET_MS), '--max-wait-ms', '20000', ...extra], {
    home,
    timeoutMs: 300_000,
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const deadline = Date.now() + 60_000;
  while (!err.includes('watching ')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`watch did not start: ${err}`);
    await sleep(50);
  }
  const w = {
    pid: child.pid!,
    checkpoints: () => out.split('\n').filter((l) => l.startsWith('checkpoint ')).length,
    /** Wait until `n` checkpoints were printed (or the time is up), then a little longer to catch extras. */
    async settle(n: number, ms = 30_000) {
      const end = Date.now() + ms;
      while (w.checkpoints() < n && Date.now() < end) await sleep(100);
      await sleep(QUIET_MS * 3);
      return w.checkpoints();
    },
    stop: async () => {
      child.kill('SIGINT');
      return done;
    },
    /** Ended by itself (or by the test's timeout). */
    done,
  };
  running.push(w);
  return w;
}

/** n edits over 20 files, with short pauses (well under the quiet period) so they arrive as many event batches. */
async function burst(ws: string, n: number, tag: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    writeFileSync(join(ws, `f${i % 20}.txt`), `${tag} edit ${i}\n`);
    if (i % 10 === 9) await sleep(10);
  }
}

describe('retrace watch', () => {
  it('200 edits in a burst make one checkpoint; two bursts apart make two; the session is a watch session', async () => {
    const ws = tempDir();
    const home = tempHome();
    writeFileSync(join(ws, 'keep.txt'), 'x\n');
    const w = await startWatch(ws, home);
    const started = Date.now();
    await burst(ws, 200, 'one');
    expect(await w.settle(1)).toBe(1);
    await burst(ws, 50, 'two');
    expect(await w.settle(2)).toBe(2);
    const r = await w.stop();
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('stopped; 2 checkpoint(s) recorded');

    const sessions = await cliJson<{ id: string; agent: string; source: string; checkpoints: number }[]>(
      ['sessions', '--cwd', ws],
      { home },
    );
    expect(sessions).toHaveLength(1);
    // The two bursts, and before them the folder as watching began: a restore point before the first change.
    expect([sessions[0]!.source, sessions[0]!.agent, sessions[0]!.checkpoints]).toEqual(['watch', 'watch', 3]);
    expect(r.stdout).toMatch(/^baseline [0-9a-f]{7} in s-/m);
    const log = await cliJson<{ messages: { hash: string | null; text: string; ts: string }[] }>(['log', '--cwd', ws], {
      home,
    });
    const last = log.messages.at(-1)!;
    expect(last.text).toMatch(/^Files changed: f0\.txt/);
    const file = await cliJson<{ after: string }>(['diff', last.hash!, '--file', 'f19.txt', '--cwd', ws], { home });
    expect(file.after).toBe(readFileSync(join(ws, 'f19.txt'), 'utf8'));
    const baseline = log.messages[0]!;
    expect(baseline.text).toBe('Before the first change (watching began)');
    expect(Date.parse(baseline.ts)).toBeLessThanOrEqual(started); // dated when watching began, not at the change
    // The first burst's step is that burst alone: twenty new files against the baseline.
    const first = await cliJson<{ files: { status: string }[] }>(
      ['diff', baseline.hash!, log.messages[1]!.hash!, '--cwd', ws],
      { home },
    );
    expect(first.files.map((f) => f.status)).toEqual(Array(20).fill('added'));
    await cliJson(['restore', baseline.hash!, '--code', '--cwd', ws], { home });
    expect(readdirSync(ws).sort()).toEqual(['keep.txt']);
  }, 240_000);

  it('another writer recording into the same session: no change twice, and no stale baseline after its checkpoints', async () => {
    const ws = tempDir();
    const home = tempHome();
    writeFileSync(join(ws, 'a.txt'), 'v1\n');
    const session = 's-shared-watch';
    // A long quiet period (the last --quiet-ms wins): the other writer's CLI call ends well within it, however loaded.
    const w = await startWatch(ws, home, ['--session', session, '--quiet-ms', '4000']);
    // Recorded by someone else first (another window's watcher, a script), within the quiet period.
    writeFileSync(join(ws, 'a.txt'), 'v2\n');
    await cliJson(['checkpoint', '--session', session, '--text', 'By the other writer', '--cwd', ws], { home });
    expect(await w.settle(1, 6_000)).toBe(0); // the watcher finds that state recorded already
    writeFileSync(join(ws, 'b.txt'), 'new\n');
    expect(await w.settle(1)).toBe(1);
    const log = await cliJson<{ messages: { text: string }[] }>(['log', '--session', session, '--cwd', ws], { home });
    // Its baseline (a.txt at v1) would come after a newer checkpoint: left out.
    expect(log.messages.map((m) => m.text)).toEqual(['By the other writer', 'Files changed: b.txt']);
  }, 120_000);

  it('edits under node_modules, .git and .gitignored paths make none; an edit elsewhere then makes one', async () => {
    const ws = tempDir();
    const home = tempHome();
    mkdirSync(join(ws, 'node_modules', 'pkg'), { recursive: true });
    mkdirSync(join(ws, '.git'), { recursive: true });
    mkdirSync(join(ws, 'build'), { recursive: true });
    writeFileSync(join(ws, '.gitignore'), 'build/\n*.log\n');
    const w = await startWatch(ws, home);
    for (let i = 0; i < 50; i++) {
      writeFileSync(join(ws, 'node_modules', 'pkg', `x${i}.js`), `${i}`);
      writeFileSync(join(ws, '.git', `y${i}`), `${i}`);
      writeFileSync(join(ws, 'build', `out${i}.o`), `${i}`);
      writeFileSync(join(ws, `debug${i}.log`), `${i}`);
    }
    await sleep(QUIET_MS * 4);
    expect(w.checkpoints()).toBe(0);
    writeFileSync(join(ws, 'src.txt'), 'real change\n');
    expect(await w.settle(1)).toBe(1);
  }, 240_000);

  it('holds no lock while idle; a busy lock defers the checkpoint to a later settle', async () => {
    const ws = tempDir();
    const home = tempHome();
    const w = await startWatch(ws, home);
    const ref = await resolveWorkspace(ws, { dataHome: home });
    const lockFile = join(ref.dir, 'writer.lock');
    await sleep(QUIET_MS * 2);
    expect(existsSync(lockFile)).toBe(false);

    const held = await acquireLock(ref, { command: 'test writer' });
    await burst(ws, 30, 'locked');
    await sleep(QUIET_MS * 2 + 2_000);
    expect(w.checkpoints()).toBe(0);
    await held.release();
    // No new edit: the watcher retries on its own after the next quiet period.
    expect(await w.settle(1)).toBe(1);
    expect(existsSync(lockFile)).toBe(false);
  }, 240_000);

  it('bad input: a malformed --quiet-ms is a usage error, a missing folder E_NOT_FOUND', async () => {
    const home = tempHome();
    const bad = await runCli(['watch', tempDir(), '--quiet-ms', 'soon', '--json'], { home });
    expect([bad.code, errorCode(bad)]).toEqual([2, 'E_USAGE']);
    const gone = await runCli(['watch', join(tempDir(), 'nope'), '--json'], { home });
    expect([gone.code, errorCode(gone)]).toEqual([1, 'E_NOT_FOUND']);
  }, 60_000);

  it.each([
    ['deleted', false],
    ['deleted and made again', true],
  ])(
    'the folder %s while watched: watch ends by itself with E_NOT_FOUND',
    async (_, again) => {
      const ws = tempDir();
      const home = tempHome();
      writeFileSync(join(ws, 'keep.txt'), 'x\n');
      const w = await startWatch(ws, home, ['--json']);
      writeFileSync(join(ws, 'keep.txt'), 'y\n');
      await sleep(QUIET_MS * 3); // one checkpoint (and its baseline) before the folder goes
      rmSync(ws, { recursive: true });
      if (again) {
        // A new folder at the same path, written to at once: the subscription was to the old one and hears nothing.
        mkdirSync(ws);
        writeFileSync(join(ws, 'new.txt'), 'n\n');
      }
      const r = await Promise.race([w.done, sleep(20_000).then(() => null)]);
      expect(r, 'watch went on after its folder was gone').not.toBeNull();
      expect([r!.code, errorCode(r!)]).toEqual([1, 'E_NOT_FOUND']);
      expect(r!.stdout).toContain('was deleted or replaced while it was watched');
    },
    60_000,
  );

  it.skipIf(process.platform !== 'linux')(
    'costs next to no CPU while nothing changes (measured, 5 s)',
    async () => {
      const ws = tempDir();
      const home = tempHome();
      for (let i = 0; i < 200; i++) {
        mkdirSync(join(ws, `d${i % 20}`), { recursive: true });
        writeFileSync(join(ws, `d${i % 20}`, `f${i}.txt`), `${i}\n`);
      }
      const w = await startWatch(ws, home);
      await sleep(1_000); // let start-up work finish
      const ticks = (): number => {
        const stat = readFileSync(`/proc/${w.pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15 of the line)
      };
      const before = ticks();
      await sleep(5_000);
      const used = ticks() - before;
      const hz = 100; // USER_HZ on Linux
      console.log(`retrace watch idle CPU over 5 s: ${used} ticks = ${((used / hz) * 1000).toFixed(0)} ms`);
      expect(used).toBeLessThanOrEqual(5); // ≤ 50 ms of CPU in 5 s (≤ 1 %): no polling, no timers
      expect(w.checkpoints()).toBe(0);
    },
    120_000,
  );
});

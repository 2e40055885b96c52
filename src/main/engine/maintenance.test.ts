/**
 * Maintenance (issue 10 items 2 and 5): packing keeps what a reader or an unfinished writer still needs
 * (unreferenced objects younger than the grace), never prunes with no grace, runs only on a free lock, and is
 * scheduled after a checkpoint returns, never inside it.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blobId, cleanupTempDirs, makeWorkspace, tempHome } from '../../../test/helpers';
import { acquireLock } from './lock';
import {
  GC_PRUNE_EXPIRE,
  MAINTENANCE_EVERY,
  maybeScheduleMaintenance,
  packingFor,
  setMaintenanceScheduler,
} from './maintenance';
import { measureStorage } from './storage/measure';
import { resolveWorkspace } from './workspace';
import { WorkspaceEngine } from './workspaceEngine';

afterAll(cleanupTempDirs);

const git = (gitDir: string, args: string[]): string =>
  execFileSync('git', [`--git-dir=${gitDir}`, ...args], {
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  }).toString();

describe('maintenance', () => {
  it("keeps a reader's unreferenced snapshot through packing and gc; refuses a gc with no grace", async () => {
    const root = makeWorkspace({ 'a.txt': 'one\n' });
    const ws = await resolveWorkspace(root, { dataHome: tempHome() });
    const engine = new WorkspaceEngine(ws);
    const c1 = await engine.checkpoint({ session: 's', text: 'c1' });
    writeFileSync(path.join(root, 'a.txt'), 'only a reader saw this\n');
    // A "Since then" diff: its tree and blob are referenced by nothing (the reader still shows them).
    expect((await engine.diff(c1.hash, 'working')).map((f) => f.path)).toEqual(['a.txt']);
    const blob = blobId(Buffer.from('only a reader saw this\n'));
    const shadow = await engine.shadow();
    await engine.write(async () => {
      await shadow.packLoose();
      await shadow.gc(GC_PRUNE_EXPIRE);
    });
    expect(git(shadow.gitDir, ['cat-file', '-p', blob])).toBe('only a reader saw this\n');
    expect(git(shadow.gitDir, ['count-objects', '-v'])).toMatch(/^packs: 1$/m);
    await expect(engine.write(() => shadow.gc('now'))).rejects.toMatchObject({ code: 'E_INVALID_INPUT' });
  });

  it('skips at once when another writer holds the lock, and runs when it is free', async () => {
    const root = makeWorkspace({ 'a.txt': 'one\n' });
    const ws = await resolveWorkspace(root, { dataHome: tempHome() });
    const engine = new WorkspaceEngine(ws);
    await engine.checkpoint({ session: 's', text: 'c1' });
    const lock = await acquireLock(ws, { command: 'a hook' });
    try {
      const t0 = Date.now();
      expect(await engine.maintenance({ force: true })).toMatchObject({ ran: false, packed: false });
      expect(Date.now() - t0).toBeLessThan(1_000);
    } finally {
      await lock.release();
    }
    expect(await engine.maintenance({ force: true })).toMatchObject({ ran: true });
  });

  it('a scheduled run starts after the call that scheduled it has returned', async () => {
    const root = makeWorkspace({ 'a.txt': 'one\n' });
    const ws = await resolveWorkspace(root, { dataHome: tempHome() });
    const order: string[] = [];
    maybeScheduleMaintenance(ws, async () => order.push('maintenance'), 1);
    order.push('call returned');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['call returned', 'maintenance']);
  });

  it('packs a small store fully once its loose objects weigh a tenth of its packs: edited files become deltas', async () => {
    // 60 files of varied text, then 30 checkpoints appending a line to 4 of them: each edit is a new loose blob.
    const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu'.split(' ');
    let seed = 7;
    const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const files: Record<string, string> = {};
    for (let f = 0; f < 60; f++)
      files[`src/f${f}.txt`] = Array.from({ length: 900 }, () => words[rand(words.length)]).join(' ') + '\n';
    const root = makeWorkspace(files);
    const ws = await resolveWorkspace(root, { dataHome: tempHome() });
    const engine = new WorkspaceEngine(ws);
    // The looks the checkpoints schedule (every 20th, and one in 50 by chance) would race the run measured below.
    const scheduled = setMaintenanceScheduler(() => {});
    let first;
    try {
      first = await engine.checkpoint({ session: 's', text: 'c0' });
      await engine.write(async () => (await engine.shadow()).gc(GC_PRUNE_EXPIRE)); // packed, as a large first one is
      for (let i = 1; i <= 30; i++) {
        for (let k = 0; k < 4; k++) appendFileSync(path.join(root, `src/f${rand(60)}.txt`), `edit ${i}.${k}\n`);
        await engine.checkpoint({ session: 's', text: `c${i}` });
      }
    } finally {
      setMaintenanceScheduler(scheduled);
    }
    const shadow = await engine.shadow();
    const counts = await shadow.objectCounts();
    expect(counts.loose).toBeLessThan(2_000); // the count rule alone would leave them loose
    expect(packingFor(counts)).toBe('gc');
    const before = await measureStorage(engine);
    expect(await engine.maintenance()).toMatchObject({ ran: true, packed: true });
    const after = await measureStorage(engine);
    const env = { ...process.env, GIT_DIR: shadow.gitDir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    const objects = execFileSync('git', ['rev-list', '--objects', '--no-walk', `${first.hash}^{tree}`], { env });
    const packedCopy = execFileSync('git', ['pack-objects', '--stdout', '-q'], { env, input: objects }).length;
    expect(after).toBeLessThan(before);
    // The history's objects (packs) against one packed copy of the first snapshot: 30 checkpoints later, a little more.
    const packDir = path.join(shadow.gitDir, 'objects', 'pack');
    const packs = readdirSync(packDir).filter((f) => f.endsWith('.pack'));
    const packBytes = packs.reduce((n, f) => n + statSync(path.join(packDir, f)).size, 0);
    expect(packs).toHaveLength(1);
    // Each file's versions make one chain: about one whole blob per file, every other version a delta.
    const listed = git(shadow.gitDir, ['verify-pack', '-v', path.join(packDir, packs[0]!)]).split('\n');
    const blobs = listed.filter((l) => / blob /.test(l));
    const whole = blobs.filter((l) => l.trim().split(/\s+/).length === 5);
    expect(blobs.length).toBeGreaterThan(60 + 100);
    expect(whole.length).toBeLessThanOrEqual(65);
    expect(packBytes).toBeLessThan(packedCopy + (before - packedCopy) / 2);
    expect(git(shadow.gitDir, ['count-objects', '-v'])).toMatch(/^count: 0$/m);
    expect(git(shadow.gitDir, ['fsck', '--no-progress'])).toBe('');
  });

  it('the packing policy: small stores by weight, large ones by count, many packs by a gc', () => {
    const MiB = 2 ** 20;
    expect(packingFor({ loose: 10, packs: 1, looseBytes: 40 * 1024, packBytes: 100 * 1024 })).toBeNull();
    expect(packingFor({ loose: 300, packs: 1, looseBytes: 1.2 * MiB, packBytes: 10 * MiB })).toBe('gc');
    expect(packingFor({ loose: 300, packs: 1, looseBytes: 0.9 * MiB, packBytes: 10 * MiB })).toBeNull();
    expect(packingFor({ loose: 1_500, packs: 2, looseBytes: 20 * MiB, packBytes: 500 * MiB })).toBeNull();
    expect(packingFor({ loose: 2_000, packs: 2, looseBytes: 20 * MiB, packBytes: 500 * MiB })).toBe('pack');
    expect(packingFor({ loose: 0, packs: 20, looseBytes: 0, packBytes: 500 * MiB })).toBe('gc');
  });

  it(`a long-lived host looks at least once every ${MAINTENANCE_EVERY} checkpoints, whatever the dice say`, async () => {
    const ws = await resolveWorkspace(makeWorkspace({ 'a.txt': 'one\n' }), { dataHome: tempHome() });
    let runs = 0;
    for (let i = 1; i <= MAINTENANCE_EVERY * 2; i++) {
      maybeScheduleMaintenance(ws, async () => runs++, 0);
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      expect(runs).toBe(Math.floor(i / MAINTENANCE_EVERY));
    }
  });
});

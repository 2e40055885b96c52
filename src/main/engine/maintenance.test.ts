/**
 * Maintenance (issue 10 items 2 and 5): packing keeps what a reader or an unfinished writer still needs
 * (unreferenced objects younger than the grace), never prunes with no grace, runs only on a free lock, and is
 * scheduled after a checkpoint returns, never inside it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blobId, cleanupTempDirs, makeWorkspace, tempHome } from '../../../test/helpers';
import { acquireLock } from './lock';
import { GC_PRUNE_EXPIRE, maybeScheduleMaintenance } from './maintenance';
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
});

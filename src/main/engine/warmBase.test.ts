/**
 * The background refresh of the warm base (warmBase.ts): a full scan made without the lock, adopted as the next
 * warm snapshot's base only when nothing was recorded meanwhile. Real git, real files in temp folders; every
 * tree is compared with a plain full scan (RETRACE_FAST_PATHS=0) of the same folder in another data home.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, fullScanTree, makeWorkspace, tempHome } from '../../../test/helpers';
import { forceFullScan, REFRESH_STREAK, WARM_MAX_STREAK } from './shadow/warmScope';
import { resolveWorkspace } from './workspace';
import { WorkspaceEngine } from './workspaceEngine';

afterAll(cleanupTempDirs);
afterEach(() => {
  delete process.env.RETRACE_FAST_PATHS;
});

interface ScanStateFile {
  lastFullAt: number;
  warmSinceFull: number;
  tree: string;
}

async function setup(): Promise<{ root: string; engine: WorkspaceEngine; state: () => ScanStateFile }> {
  const root = makeWorkspace({ 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'd.txt': 'd0\n', 'src/e.txt': 'e0\n' });
  const ws = await resolveWorkspace(root, { dataHome: tempHome() });
  const engine = new WorkspaceEngine(ws);
  const state = (): ScanStateFile =>
    JSON.parse(readFileSync(path.join(ws.dir, 'shadow.git', 'retrace-scan.json'), 'utf8')) as ScanStateFile;
  return { root, engine, state };
}

async function treeOf(engine: WorkspaceEngine, hash: string | null): Promise<string> {
  return (await engine.shadow()).treeOf(hash!);
}

/** `n` hinted (warm) checkpoints, each after an edit of a.txt. */
async function warmCalls(root: string, engine: WorkspaceEngine, n: number, tag: string): Promise<string | null> {
  let hash: string | null = null;
  for (let i = 0; i < n; i++) {
    writeFileSync(path.join(root, 'a.txt'), `a ${tag} ${i}\n`);
    hash = (await engine.checkpoint({ session: 's', text: `edit ${tag} ${i}`, hintPaths: ['a.txt'] })).hash;
  }
  return hash;
}

describe('background refresh of the warm base', () => {
  it('an unhinted edit made between hook calls lands in the next (warm) checkpoint; every tree equals a full scan', async () => {
    const { root, engine, state } = await setup();
    await engine.checkpoint({ session: 's', text: 'first' });
    expect(await engine.refreshWarmBase()).toBe('not-due'); // just scanned in full
    await warmCalls(root, engine, REFRESH_STREAK, 'x');
    expect(state().warmSinceFull).toBe(REFRESH_STREAK);

    // Changes no hint names: a modified, a new and a deleted file (a formatter, a build step).
    writeFileSync(path.join(root, 'b.txt'), 'b changed behind the hooks\n');
    writeFileSync(path.join(root, 'src/new.txt'), 'new\n');
    rmSync(path.join(root, 'd.txt'));
    const before = Date.now();
    expect(await engine.refreshWarmBase()).toBe('adopted');
    const adopted = state();
    expect(adopted.warmSinceFull).toBe(0);
    expect(adopted.lastFullAt).toBeGreaterThanOrEqual(before);
    expect(adopted.tree).toBe(await fullScanTree(root));

    // The next hook call stays warm (the streak restarts from the background scan) and carries those changes.
    writeFileSync(path.join(root, 'a.txt'), 'a after\n');
    const next = await engine.checkpoint({ session: 's', text: 'edit after', hintPaths: ['a.txt'] });
    expect(state().warmSinceFull).toBe(1);
    expect(await treeOf(engine, next.hash)).toBe(await fullScanTree(root));
    expect((await engine.diff(null, next.hash!)).map((f) => f.path).sort()).toEqual([
      'a.txt',
      'b.txt',
      'src/e.txt',
      'src/new.txt',
    ]);
    const changed = (await engine.session('s')).messages.at(-1)!;
    expect(changed.stats?.files).toBe(4); // the hinted a.txt, and b.txt, d.txt, src/new.txt that no hint named
    // A full checkpoint now (nothing changed since) makes the very same tree.
    const full = await engine.checkpoint({ session: 's', text: 'full' });
    expect(await treeOf(engine, full.hash)).toBe(await treeOf(engine, next.hash));
  });

  it('is dropped when a checkpoint was recorded while it scanned, and tried again later', async () => {
    const { root, engine, state } = await setup();
    await engine.checkpoint({ session: 's', text: 'first' });
    await warmCalls(root, engine, REFRESH_STREAK, 'x');
    const shadow = await engine.shadow();
    writeFileSync(path.join(root, 'b.txt'), 'unhinted\n');
    const base = await shadow.prepareWarmBase();
    expect(base).not.toBeNull();
    // A hook call lands while the background scan runs: its checkpoint wins, the scan's tree is not adopted.
    await warmCalls(root, engine, 1, 'y');
    const after = JSON.stringify(state());
    expect(await engine.write(() => shadow.adoptWarmBase(base!))).toBe(false);
    expect(JSON.stringify(state())).toBe(after);
    // The next idle moment tries again, and succeeds.
    expect(await engine.refreshWarmBase()).toBe('adopted');
    expect(state().tree).toBe(await fullScanTree(root));
  });

  it('never runs while a restore forced a full scan, nor while the writer lock is taken', async () => {
    const { root, engine, state } = await setup();
    await engine.checkpoint({ session: 's', text: 'first' });
    await warmCalls(root, engine, REFRESH_STREAK, 'x');
    // The lock is taken (a hook call in this process): the refresh declines at once instead of queuing.
    expect(await engine.write(() => engine.refreshWarmBase())).toBe('busy');
    // A restore about to write into the folder forces the next snapshot to a full one: that is left to the next
    // call's own full scan (a scan alongside the restore could see half of what it writes).
    await forceFullScan((await engine.shadow()).gitDir);
    expect(state().lastFullAt).toBe(0);
    expect(await engine.refreshWarmBase()).toBe('not-due');
  });

  it('keeps the in-call limit when no refresh ran: the call after WARM_MAX_STREAK warm ones scans in full', async () => {
    const { root, engine, state } = await setup();
    await engine.checkpoint({ session: 's', text: 'first' });
    await warmCalls(root, engine, WARM_MAX_STREAK, 'x');
    writeFileSync(path.join(root, 'b.txt'), 'unhinted\n');
    const next = await warmCalls(root, engine, 1, 'y');
    expect(state().warmSinceFull).toBe(0);
    expect(await treeOf(engine, next)).toBe(await fullScanTree(root));
  });
});

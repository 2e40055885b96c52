/**
 * A warm checkpoint leaves its objects unsynced until the journal round (record.ts publish) and records the scan
 * state only then (snapshot.ts settle). A checkpoint that fails after its warm snapshot must still leave that tree
 * as the next warm snapshot's base, as when the state was recorded at once: otherwise the next call, hinting
 * another file, would build on the older tree and lose the first file's change until a full scan — a warm tree
 * that disagrees with a full scan. Real git, real files; compared with a plain full scan in another data home.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, fullScanTree, makeWorkspace, tempHome } from '../../../test/helpers';
import { resolveWorkspace } from './workspace';
import { WorkspaceEngine } from './workspaceEngine';

afterAll(cleanupTempDirs);

describe('a warm checkpoint that fails before its log line', () => {
  it('still makes its tree the next warm base: the next hinted checkpoint equals a full scan', async () => {
    const root = makeWorkspace({ 'a.txt': 'a0\n', 'src/b.txt': 'b0\n' });
    const ws = await resolveWorkspace(root, { dataHome: tempHome() });
    const engine = new WorkspaceEngine(ws);
    const state = () =>
      JSON.parse(readFileSync(path.join(ws.dir, 'shadow.git', 'retrace-scan.json'), 'utf8')) as {
        warmSinceFull: number;
        tree: string;
      };
    await engine.checkpoint({ session: 's', text: 'first' });
    writeFileSync(path.join(root, 'a.txt'), 'a1\n');
    await engine.checkpoint({ session: 's', text: 'warm', hintPaths: ['a.txt'] });
    expect(state().warmSinceFull, 'the hinted checkpoint was warm').toBe(1);

    // The journal cannot be written (a folder where its temp file goes): the checkpoint fails after its snapshot.
    writeFileSync(path.join(root, 'a.txt'), 'a2\n');
    const blocker = path.join(ws.dir, `journal.json.${process.pid}.tmp`);
    mkdirSync(path.join(blocker, 'x'), { recursive: true });
    await expect(engine.checkpoint({ session: 's', text: 'fails', hintPaths: ['a.txt'] })).rejects.toThrow();
    rmSync(blocker, { recursive: true });
    expect(state().warmSinceFull, 'its warm tree was recorded all the same').toBe(2);

    // The next call names only src/b.txt: a.txt's change of the failed call is in its checkpoint all the same.
    writeFileSync(path.join(root, 'src/b.txt'), 'b1\n');
    const next = await engine.checkpoint({ session: 's', text: 'next', hintPaths: ['src/b.txt'] });
    expect(state().warmSinceFull).toBe(3);
    const tree = await (await engine.shadow()).treeOf(next.hash!);
    expect(tree).toBe(await fullScanTree(root));
    await engine.closeShadow();
  });
});

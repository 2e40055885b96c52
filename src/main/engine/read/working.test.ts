/** Reads of the files as they are now: a huge file is never read whole, a file over the size cap never "deleted". */
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../../../test/helpers';
import { resolveWorkspace } from '../workspace';
import { WorkspaceEngine } from '../workspaceEngine';

afterAll(cleanupTempDirs);

async function engineFor(files: Record<string, string>) {
  const root = makeWorkspace(files);
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempHome() }));
  return { root, engine };
}

describe('reading the files now', () => {
  it('a working file of 3 GB is shown as too large without being read (checked by size first)', async () => {
    const { root, engine } = await engineFor({ 'big.log': 'small\n' });
    const { hash } = await engine.checkpoint();
    truncateSync(join(root, 'big.log'), 3 * 2 ** 30); // sparse: instant to make, minutes (or a crash) to read whole
    const t0 = Date.now();
    const c = await engine.fileContents(hash, 'working', 'big.log');
    expect(c).toMatchObject({ path: 'big.log', tooLarge: true, after: null, before: null });
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('a file grown over the size cap shows as changed and not captured, never as deleted', async () => {
    const { root, engine } = await engineFor({ 'data.bin': 'x\n', 'a.txt': 'a\n' });
    const { hash } = await engine.checkpoint();
    truncateSync(join(root, 'data.bin'), 60 * 2 ** 20); // over the 50 MiB cap
    writeFileSync(join(root, 'a.txt'), 'b\n');
    const files = await engine.diff(hash, 'working');
    expect(files.find((f) => f.path === 'data.bin')).toMatchObject({ status: 'modified', notCaptured: 'too-large' });
    expect(files.find((f) => f.path === 'a.txt')).toMatchObject({ status: 'modified', insertions: 1, deletions: 1 });
    expect(files.some((f) => f.status === 'deleted')).toBe(false);
  });
});

/**
 * PRODUCT.md I13 on a real case-insensitive, case-preserving folder (test/helpers/ciFuse.py over FUSE): a
 * case-only rename round-trips through checkpoint, diff, restore and undo, and nothing is ever lost.
 * `src` is the storage under the mount: its listing shows each name exactly as stored.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, gitAt, shadowDir, tempDir, tempHome } from '../../../../test/helpers';
import { fuseUnavailable, mountCaseInsensitive, unmountAll } from '../../../../test/helpers/ciFuse';
import { resolveWorkspace } from '../workspace';
import { ShadowRepo } from './ShadowRepo';
import { treeListing } from './testSupport';
import { checkScan } from './warmScope';

const unavailable = fuseUnavailable();
if (unavailable) console.warn(`skipped: FUSE not available: ${unavailable}`);

let mnt = '';
let src = '';
beforeAll(async () => {
  if (unavailable) return;
  ({ mnt, src } = await mountCaseInsensitive());
});
afterAll(() => {
  unmountAll();
  cleanupTempDirs();
});

/** A fresh project folder inside the mount: [path through the mount, path of its storage]. */
function project(name: string, files: Record<string, string>): [string, string] {
  const root = path.join(mnt, name);
  mkdirSync(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return [root, path.join(src, name)];
}

const stored = (dir: string): string[] => readdirSync(dir).sort();

describe.skipIf(unavailable !== null)('a case-insensitive folder (FUSE mount)', () => {
  it('is detected without writing into it, and two spellings of its path are one workspace', async () => {
    const [root, storage] = project('Ident', { 'a.txt': 'a\n' });
    const home = tempHome();
    const a = await resolveWorkspace(root, { dataHome: home });
    const b = await resolveWorkspace(path.join(mnt, 'iDENT'), { dataHome: home });
    expect(a.caseInsensitive).toBe(true);
    expect(b.id).toBe(a.id);
    expect(stored(storage)).toEqual(['a.txt']);
    // The mount point itself: its own name belongs to the file system above, so an entry inside decides.
    expect((await resolveWorkspace(mnt, { dataHome: tempHome() })).caseInsensitive).toBe(true);
    // A name without letters, nothing inside: the folder above on the same file system decides.
    mkdirSync(path.join(mnt, '2024'));
    expect((await resolveWorkspace(path.join(mnt, '2024'), { dataHome: tempHome() })).caseInsensitive).toBe(true);
    // A case-sensitive folder is not taken for one.
    expect((await resolveWorkspace(tempDir(), { dataHome: tempHome() })).caseInsensitive).toBe(false);
  });

  it('round-trips case-only renames of a file and a folder through checkpoint, diff, restore and undo', async () => {
    const [root, storage] = project('Roundtrip', {
      'README.md': '# hello\n',
      'Src/main.ts': 'export const main = 1;\n',
      'other.txt': 'other\n',
    });
    const home = tempHome();
    const run = <T>(args: string[]): Promise<T> => cliJson<T>(args, { home, cwd: root });
    const first = await run<{ hash: string }>(['checkpoint']);

    renameSync(path.join(root, 'README.md'), path.join(root, 'readme.md'));
    renameSync(path.join(root, 'Src'), path.join(root, 'src'));
    expect(stored(storage)).toEqual(['other.txt', 'readme.md', 'src']);
    const second = await run<{ hash: string; changed: { added: number; deleted: number } }>(['checkpoint']);
    // One entry per file, spelled as on disk now.
    const names = gitAt(shadowDir(home, root), ['ls-tree', '-r', '--name-only', second.hash]).trim().split('\n');
    expect(names.sort()).toEqual(['other.txt', 'readme.md', 'src/main.ts']);

    const diff = await run<{ files: { path: string; oldPath?: string; status: string }[] }>([
      'diff',
      first.hash,
      second.hash,
    ]);
    expect(diff.files.map((f) => [f.status, f.oldPath, f.path]).sort()).toEqual([
      ['renamed', 'README.md', 'readme.md'],
      ['renamed', 'Src/main.ts', 'src/main.ts'],
    ]);
    expect((await run<{ files: unknown[] }>(['diff', second.hash])).files).toEqual([]);

    // Back to the first checkpoint: the files are still there, spelled as they were then.
    await run(['restore', first.hash, '--code']);
    expect(stored(storage)).toEqual(['README.md', 'Src', 'other.txt']);
    expect(readFileSync(path.join(storage, 'README.md'), 'utf8')).toBe('# hello\n');
    expect(readFileSync(path.join(storage, 'Src/main.ts'), 'utf8')).toBe('export const main = 1;\n');

    // Undo: the new spelling is back, content intact.
    await run(['undo']);
    expect(stored(storage)).toEqual(['other.txt', 'readme.md', 'src']);
    expect(readFileSync(path.join(storage, 'readme.md'), 'utf8')).toBe('# hello\n');
    expect(stored(path.join(storage, 'src'))).toEqual(['main.ts']);
    // And undoing the undo re-applies the restore.
    await run(['undo']);
    expect(stored(storage)).toEqual(['README.md', 'Src', 'other.txt']);
  });

  it('restores a rename with changed content, and a rename whose old spelling the tree held twice', async () => {
    const [root, storage] = project('Content', { 'Notes.txt': 'v1\n', 'Ärger.txt': 'ä\n' });
    const { repo } = await openOn(root);
    const t1 = (await repo.snapshotTree()).tree;
    renameSync(path.join(root, 'Notes.txt'), path.join(root, 'notes.txt'));
    appendFileSync(path.join(root, 'notes.txt'), 'v2\n');
    renameSync(path.join(root, 'Ärger.txt'), path.join(root, 'äRGER.txt')); // beyond ASCII
    const t2 = (await repo.snapshotTree()).tree;
    expect([...(await treeListing(repo, t2)).keys()]).toEqual(['notes.txt', 'äRGER.txt']);

    const plan = await repo.planRestore(t2, t1);
    expect(plan.skipped).toEqual([]);
    // Restoring just that file, named in either spelling, plans the same rename.
    for (const named of ['Notes.txt', 'notes.txt']) {
      const one = await repo.planRestore(t2, t1, [named]);
      const notes = plan.steps.filter((st) => st.path.toLowerCase() === 'notes.txt');
      expect(notes.map((st) => [st.action, st.path])).toEqual([
        ['delete', 'notes.txt'],
        ['write', 'Notes.txt'],
      ]);
      expect({ steps: one.steps, skipped: one.skipped }).toEqual({ steps: notes, skipped: [] });
    }
    await repo.applyPaths(
      t1,
      plan.steps.map((s) => s.path),
    );
    expect(stored(storage)).toEqual(['Notes.txt', 'Ärger.txt']);
    expect(readFileSync(path.join(storage, 'Notes.txt'), 'utf8')).toBe('v1\n');
    rmSync(path.join(root, 'Ärger.txt'));

    // Before this fix a case-only rename left both spellings in the tree; restoring the checkpoint before it
    // deleted "the other" one — on this disk the only copy (issue 10, item 9). Recorded as then:
    const { repo: legacy } = await openOn(root, false);
    const before = (await legacy.snapshotTree()).tree;
    renameSync(path.join(root, 'Notes.txt'), path.join(root, 'notes.txt'));
    const both = (await legacy.snapshotTree()).tree;
    expect([...(await treeListing(legacy, both)).keys()]).toEqual(['Notes.txt', 'notes.txt']);
    const legacyPlan = await legacy.planRestore(both, before);
    expect(legacyPlan.steps).toEqual([{ path: 'notes.txt', action: 'delete', was: expect.any(String) }]);
    const fixed = await ShadowRepo.open({ ...legacy.ws, caseInsensitive: true });
    const changed = await fixed.applyPaths(before, ['notes.txt']);
    expect(changed).toEqual(['Notes.txt', 'notes.txt']);
    expect(stored(storage)).toEqual(['Notes.txt']);
    expect(readFileSync(path.join(storage, 'Notes.txt'), 'utf8')).toBe('v1\n');
  });

  it('drops an index entry spelled twice, and a warm snapshot follows the disk’s spelling', async () => {
    const [root, storage] = project('Warm', { 'Main.ts': 'one\n', 'b.ts': 'b\n' });
    const { repo } = await openOn(root);
    await repo.snapshotTree();
    await repo.snapshotTree({ hintPaths: [] }); // settled: warm snapshots may run
    // The agent writes `main.ts`: on this disk that is the file stored as Main.ts, and stays so.
    writeFileSync(path.join(root, 'main.ts'), 'two\n');
    expect(stored(storage)).toEqual(['Main.ts', 'b.ts']);
    const warm = await repo.snapshotTree({ hintPaths: ['main.ts'] });
    expect((await checkScan(repo.gitDir)).state?.warmSinceFull).toBe(2); // warm ([] and this), not a full scan
    expect([...(await treeListing(repo, warm.tree)).keys()]).toEqual(['Main.ts', 'b.ts']);
    expect((await repo.readFile(warm.tree, 'Main.ts'))?.bytes.toString()).toBe('two\n');

    // Renamed by case, then hinted: the warm path gives way to a full scan, which replaces the old spelling.
    renameSync(path.join(root, 'Main.ts'), path.join(root, 'main.ts'));
    const renamed = await repo.snapshotTree({ hintPaths: ['main.ts'] });
    expect([...(await treeListing(repo, renamed.tree)).keys()]).toEqual(['b.ts', 'main.ts']);

    // An index left holding both spellings (before this fix) is reduced to the disk's on an unsettled scan.
    const { repo: old } = await openOn(root, false);
    await old.snapshotTree();
    renameSync(path.join(root, 'main.ts'), path.join(root, 'MAIN.ts'));
    const both = await old.snapshotTree();
    expect([...(await treeListing(old, both.tree)).keys()]).toEqual(['MAIN.ts', 'b.ts', 'main.ts']);
    const fixed = await ShadowRepo.open({ ...old.ws, caseInsensitive: true });
    rmSync(path.join(fixed.gitDir, 'retrace-scan.json'));
    const one = await fixed.snapshotTree();
    expect([...(await treeListing(fixed, one.tree)).keys()]).toEqual(['MAIN.ts', 'b.ts']);
  });
});

async function openOn(root: string, caseInsensitive = true): Promise<{ repo: ShadowRepo }> {
  const ws = await resolveWorkspace(root, { dataHome: tempHome() });
  expect(ws.caseInsensitive).toBe(true);
  return { repo: await ShadowRepo.open({ ...ws, caseInsensitive }) };
}

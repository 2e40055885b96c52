/**
 * A restore stages what it wrote into the shadow index (stageRestored.ts), so that the next snapshot hashes and
 * writes nothing. The oracle: a full scan of the same folder by a shadow repository that starts from nothing
 * (no index, no state, fast paths off) must give the very same tree — also when someone writes right after the
 * restore, and when the restore is one left to the full scan (rule files, files new to the index).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome, treeManifest } from '../../../../test/helpers';
import { setTestHook, TEST_HOOK_POINTS } from '../faults';
import { traceSteps } from '../stepTrace';
import { resolveWorkspace } from '../workspace';
import { WorkspaceEngine } from '../workspaceEngine';
import { openTemp } from './testSupport';

beforeAll(() => {
  process.env.RETRACE_TEST_FAULTS = '1';
});
afterEach(() => {
  for (const p of TEST_HOOK_POINTS) setTestHook(p, null);
});
afterAll(() => {
  delete process.env.RETRACE_TEST_FAULTS;
  cleanupTempDirs();
});

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

async function setup(files: Record<string, string>) {
  const root = makeWorkspace(files);
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempHome() }));
  const checkpoint = async (): Promise<string> => (await engine.checkpoint()).hash!;
  const treeOf = async (commit: string): Promise<string> => {
    const gitDir = (await engine.shadow()).gitDir;
    return execFileSync('git', [`--git-dir=${gitDir}`, 'rev-parse', `${commit}^{tree}`], { env: gitEnv })
      .toString()
      .trim();
  };
  /** The next checkpoint's tree, and whether its snapshot had to stage or write a tree. */
  const next = async (): Promise<{ tree: string; staged: boolean }> => {
    const { value, steps } = await traceSteps(checkpoint);
    return { tree: await treeOf(value), staged: /(^| )(add|write-tree)=/.test(steps) };
  };
  return { root, engine, checkpoint, treeOf, next, at: (p: string) => path.join(root, p) };
}

/** The folder as a full scan from nothing captures it: a new shadow repository, fast paths off. */
async function fullScanTree(root: string): Promise<string> {
  const { repo } = await openTemp(root);
  process.env.RETRACE_FAST_PATHS = '0';
  try {
    return (await repo.snapshotTree()).tree;
  } finally {
    delete process.env.RETRACE_FAST_PATHS;
    repo.close();
  }
}

/** A restore's steps when its files went into the index here and the index's tree was known without git. */
const STAGED_HERE_WHOLE = /^(?!.*(^| )stage\.(add|tree)=).*(^| )stage\.index=/;

const files = (n: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`src/d${i % 4}/f${i}.ts`, `export const v = ${i};\n`]));

describe('the shadow index follows a restore', () => {
  it('the next snapshot stages nothing and writes no tree, and gives the tree a full scan from nothing gives', async () => {
    const { root, engine, checkpoint, treeOf, next, at } = await setup({ ...files(30), 'run.sh': '#!/bin/sh\n' });
    const c1 = await checkpoint();
    for (const i of [1, 5, 9]) writeFileSync(at(`src/d${i % 4}/f${i}.ts`), `export const v = ${i} + 1;\n`);
    chmodSync(at('run.sh'), 0o755);
    writeFileSync(at('src/new.ts'), 'new\n');
    await checkpoint();

    // run.sh only changes its mode (chmod, not written): git stages what this restore did from the disk.
    const restored = await traceSteps(() => engine.restore({ target: c1, mode: 'code' }));
    expect(restored.steps).toMatch(/(^| )stage\.add=/);
    const after = await next();
    expect(after.staged).toBe(false);
    expect(after.tree).toBe(await treeOf(c1));
    expect(after.tree).toBe(await fullScanTree(root));

    // The undo's own safety snapshot is as cheap, and the folder is back as it was before the restore.
    for (const i of [3, 7]) writeFileSync(at(`src/d${i % 4}/f${i}.ts`), `export const v = ${i} + 2;\n`);
    const before = treeManifest(root);
    const c2 = await checkpoint();
    await engine.restore({ target: c1, mode: 'code' });
    const undo = await traceSteps(() => engine.undo());
    expect(undo.steps).toMatch(/(^| )snapshot=/);
    expect(undo.steps).not.toMatch(/(^| )(add|write-tree)=/);
    expect(treeManifest(root)).toEqual(before);
    const afterUndo = await next();
    expect(afterUndo.tree).toBe(await treeOf(c2));
    expect(afterUndo.tree).toBe(await fullScanTree(root));
  });

  it('files written and deleted go into the index as written, its tree known without git, for the undo too', async () => {
    const { root, engine, checkpoint, treeOf, next, at } = await setup(files(30));
    const c1 = await checkpoint();
    for (const i of [1, 5, 9, 22]) writeFileSync(at(`src/d${i % 4}/f${i}.ts`), `export const v = ${i} + 1;\n`);
    writeFileSync(at('src/d0/new.ts'), 'new\n');
    const c2 = await checkpoint();
    // Back to c1: four files written, new.ts deleted — every path where the two trees differ.
    const restored = await traceSteps(() => engine.restore({ target: c1, mode: 'code' }));
    expect(restored.steps).toMatch(STAGED_HERE_WHOLE);
    const after = await next();
    expect(after).toEqual({ tree: await treeOf(c1), staged: false });
    expect(after.tree).toBe(await fullScanTree(root));
    // The undo writes the four back, in the index as written; new.ts comes back too, new to the index, so it is
    // left to the next full scan and git writes the index's tree.
    const undo = await traceSteps(() => engine.undo());
    expect(undo.steps).toMatch(/(^| )stage\.index=.*(^| )stage\.tree=/);
    expect(undo.steps).not.toMatch(/(^| )stage\.add=/);
    const afterUndo = await next();
    expect(afterUndo.tree).toBe(await treeOf(c2));
    expect(afterUndo.tree).toBe(await fullScanTree(root));
    // And once more: a restore whose steps are all writes, undone by an undo whose steps are all writes.
    writeFileSync(at('src/d1/f1.ts'), 'export const v = 100;\n');
    const c3 = await checkpoint();
    expect((await traceSteps(() => engine.restore({ target: c2, mode: 'code' }))).steps).toMatch(STAGED_HERE_WHOLE);
    expect((await traceSteps(() => engine.undo())).steps).toMatch(STAGED_HERE_WHOLE);
    const last = await next();
    expect(last).toEqual({ tree: await treeOf(c3), staged: false });
    expect(last.tree).toBe(await fullScanTree(root));
  });

  it('a file rewritten right after the rename, with the same size in the same second, is in the next checkpoint', async () => {
    const { root, engine, checkpoint, next, at } = await setup(files(12));
    const c1 = await checkpoint();
    writeFileSync(at('src/d1/f1.ts'), 'export const v = 1 + 1;\n');
    writeFileSync(at('src/d2/f2.ts'), 'export const v = 2 + 1;\n');
    await checkpoint();
    // Another program writes the restored file between our rename and our staging (same length as the restored).
    let wrote = false;
    setTestHook('apply:after-rename', (abs) => {
      if (wrote || !abs.endsWith('f1.ts')) return;
      wrote = true;
      writeFileSync(abs, 'export const v = 7;\n');
    });
    const restored = await traceSteps(() => engine.restore({ target: c1, mode: 'code' }));
    expect(wrote).toBe(true);
    // Its mtime moved after the write: not provably as written, so git staged the files from the disk.
    expect(restored.steps).toMatch(/(^| )stage\.add=/);
    expect(restored.steps).not.toMatch(/(^| )stage\.index=/);
    // And once more after the restore returned, same size again, within the same second as the staging.
    writeFileSync(at('src/d2/f2.ts'), 'export const v = 8;\n');
    const after = await next();
    expect(after.tree).toBe(await fullScanTree(root));
    const { repo } = { repo: await engine.shadow() };
    expect((await repo.readFile(after.tree, 'src/d1/f1.ts'))?.bytes.toString()).toBe('export const v = 7;\n');
    expect((await repo.readFile(after.tree, 'src/d2/f2.ts'))?.bytes.toString()).toBe('export const v = 8;\n');
  });

  it('a restore limited to some paths, with deletions, while other files differ too: git writes the tree', async () => {
    const { root, engine, checkpoint, next, at } = await setup(files(24));
    const c1 = await checkpoint();
    for (const i of [2, 6, 10]) writeFileSync(at(`src/d${i % 4}/f${i}.ts`), `export const v = ${i} * 3;\n`);
    writeFileSync(at('src/d1/extra.ts'), 'extra\n');
    await checkpoint();
    // Back: two edited files, and the added one (deleted by the restore); f10.ts keeps its edit.
    const restored = await traceSteps(() =>
      engine.restore({ target: c1, mode: 'code', paths: ['src/d2/f2.ts', 'src/d2/f6.ts', 'src/d1/extra.ts'] }),
    );
    expect(restored.steps).toMatch(/(^| )stage\.index=/);
    expect(restored.steps).toMatch(/(^| )stage\.tree=/);
    expect(restored.steps).not.toMatch(/(^| )stage\.add=/);
    const after = await next();
    expect(after.staged).toBe(false);
    expect(after.tree).toBe(await fullScanTree(root));
    const repo = await engine.shadow();
    expect(await repo.readFile(after.tree, 'src/d1/extra.ts')).toBeNull();
    expect((await repo.readFile(after.tree, 'src/d2/f10.ts'))?.bytes.toString()).toBe('export const v = 10 * 3;\n');
    expect((await repo.readFile(after.tree, 'src/d2/f2.ts'))?.bytes.toString()).toBe('export const v = 2;\n');
  });

  it('a file rewritten right after the rename with its mtime set back to the very nanosecond is in the next checkpoint', async () => {
    const { root, engine, checkpoint, next, at } = await setup(files(12));
    const c1 = await checkpoint();
    writeFileSync(at('src/d1/f1.ts'), 'export const v = 1 + 1;\n');
    await checkpoint();
    let wrote = false;
    setTestHook('apply:after-rename', (abs) => {
      if (wrote || !abs.endsWith('f1.ts')) return;
      wrote = true;
      const { mtimeNs } = lstatSync(abs, { bigint: true });
      writeFileSync(abs, 'export const v = 7;\n'); // the restored file's length
      const ns = String(mtimeNs % 1_000_000_000n).padStart(9, '0');
      execFileSync('touch', ['-m', '-d', `@${mtimeNs / 1_000_000_000n}.${ns}`, abs]);
      expect(lstatSync(abs, { bigint: true }).mtimeNs).toBe(mtimeNs);
    });
    const restored = await traceSteps(() => engine.restore({ target: c1, mode: 'code' }));
    expect(wrote).toBe(true);
    expect(restored.steps).toMatch(/(^| )stage\.add=/); // its ctime moved: git staged it from the disk
    const after = await next();
    expect(after.tree).toBe(await fullScanTree(root));
    expect((await (await engine.shadow()).readFile(after.tree, 'src/d1/f1.ts'))?.bytes.toString()).toBe(
      'export const v = 7;\n',
    );
  });

  it('a restore that writes an ignore file is left to the full scan, which sweeps by the restored rules', async () => {
    const { root, engine, checkpoint, next, at } = await setup({
      ...files(6),
      '.gitignore': '*.log\n',
      'a.log': 'log\n',
    });
    const c1 = await checkpoint(); // a.log ignored: not captured
    writeFileSync(at('.gitignore'), 'x\n');
    writeFileSync(at('src/d0/f0.ts'), 'edited\n');
    await checkpoint(); // a.log captured now
    // The rule comes back: a.log must leave the next checkpoint, as it would in a full scan from nothing.
    await engine.restore({ target: c1, mode: 'code', paths: ['src/d0/f0.ts', '.gitignore'] });
    const after = await next();
    expect(after.staged).toBe(true);
    expect(after.tree).toBe(await fullScanTree(root));
    expect(await (await engine.shadow()).readFile(after.tree, 'a.log')).toBeNull();
  });

  it('a restored file the index has no entry for is judged by the rules now in force, as a full scan would', async () => {
    const { root, engine, checkpoint, next, at } = await setup({ ...files(6), 'build.log': 'old log\n' });
    const c1 = await checkpoint();
    rmSync(at('build.log'));
    rmSync(at('src/d1/f1.ts'));
    writeFileSync(at('src/d0/f0.ts'), 'edited\n');
    writeFileSync(at('.gitignore'), '*.log\n');
    await checkpoint();
    // build.log (ignored now) and f1.ts come back, f0.ts goes back: only f0.ts is staged; the full scan then
    // adds f1.ts and leaves the ignored file out.
    await engine.restore({ target: c1, mode: 'code', paths: ['build.log', 'src/d0/f0.ts', 'src/d1/f1.ts'] });
    const after = await next();
    expect(after.tree).toBe(await fullScanTree(root));
    const repo = await engine.shadow();
    expect(await repo.readFile(after.tree, 'build.log')).toBeNull();
    expect((await repo.readFile(after.tree, 'src/d1/f1.ts'))?.bytes.toString()).toBe('export const v = 1;\n');
    expect((await repo.readFile(after.tree, 'src/d0/f0.ts'))?.bytes.toString()).toBe('export const v = 0;\n');
  });
});

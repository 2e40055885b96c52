/** I4: a restore rewrites only the files that differ; unchanged files keep their mtime (and inode). */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, makeWorkspace, tempHome, type TreeSpec } from '../helpers';

afterAll(cleanupTempDirs);

describe('I4: only differing files are written', () => {
  it('restore and undo touch exactly the changed files', async () => {
    const spec: TreeSpec = {};
    for (let i = 0; i < 60; i++) spec[`src/f${i}.txt`] = `file ${i}\n`;
    const root = makeWorkspace(spec);
    const home = tempHome();
    const o = { home, cwd: root };
    const c = await cliJson(['checkpoint'], o);
    writeFileSync(join(root, 'src/f3.txt'), 'changed\n');
    writeFileSync(join(root, 'src/f40.txt'), 'changed\n');
    const stamp = () =>
      new Map(Object.keys(spec).map((p) => [p, `${statSync(join(root, p)).mtimeMs}/${statSync(join(root, p)).ino}`]));
    const before = stamp();
    await new Promise((r) => setTimeout(r, 20));
    const r = await cliJson<{ changed: string[] }>(['restore', c.hash as string, '--code'], o);
    expect(r.changed.sort()).toEqual(['src/f3.txt', 'src/f40.txt']);
    const after = stamp();
    const touched = [...before.keys()].filter((p) => before.get(p) !== after.get(p)).sort();
    expect(touched).toEqual(['src/f3.txt', 'src/f40.txt']);
    const u = await cliJson<{ changed: string[] }>(['undo'], o);
    expect(u.changed.sort()).toEqual(['src/f3.txt', 'src/f40.txt']);
    const afterUndo = stamp();
    expect([...after.keys()].filter((p) => after.get(p) !== afterUndo.get(p)).sort()).toEqual([
      'src/f3.txt',
      'src/f40.txt',
    ]);
  });
});

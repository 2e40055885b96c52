/**
 * A restore's plan carries the target tree's entries (RestorePlan.entries) so that the apply need not run
 * `ls-tree` again: they must be exactly what ls-tree answers for the planned paths, and an apply given them
 * must leave the same folder as one that asks git.
 */
import { promises as fs, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, git, makeWorkspace, tempDir, treeManifest, writeTree } from '../../../../test/helpers';
import type { TreeEntry } from '../git/lsTree';
import { entriesAsListed } from './apply';
import { openTemp } from './testSupport';

afterAll(cleanupTempDirs);

function lsTreeOf(gitDir: string, tree: string, paths: string[]): TreeEntry[] {
  const out = git(tempDir('retrace-ls-'), ['--git-dir', gitDir, 'ls-tree', '-z', '--full-tree', tree, '--', ...paths]);
  return out
    .split('\0')
    .filter((r) => r !== '')
    .map((rec) => {
      const tab = rec.indexOf('\t');
      const [mode, type, id] = rec.slice(0, tab).split(' ');
      return { mode: mode!, type: type as TreeEntry['type'], id: id!, path: rec.slice(tab + 1) };
    });
}

const byPath = (entries: readonly TreeEntry[], paths: readonly string[]): Map<string, TreeEntry> => {
  const wanted = new Set(paths);
  // ls-tree gives no id that matters for a folder entry here: the apply only looks at its type.
  return new Map(
    entries.filter((e) => wanted.has(e.path)).map((e) => [e.path, { ...e, id: e.type === 'tree' ? '' : e.id }]),
  );
};

describe('RestorePlan.entries', () => {
  it('equal ls-tree of the target for every planned path, both ways and with named paths', async () => {
    const root = makeWorkspace({
      'mod.txt': 'v1\n',
      'gone.txt': 'deleted later\n',
      'run.sh': { content: '#!/bin/sh\n', mode: 0o755 },
      link: { symlink: 'mod.txt' },
      f2d: 'file that becomes a folder\n',
      'd2f/inner.txt': 'folder that becomes a file\n',
      'deep/a/b/c.txt': 'deep\n',
      'same.txt': 'same\n',
    });
    const { repo } = await openTemp(root);
    const first = (await repo.snapshotTree()).tree;
    writeFileSync(path.join(root, 'mod.txt'), 'v2\n');
    await fs.rm(path.join(root, 'gone.txt'));
    writeFileSync(path.join(root, 'added.txt'), 'new\n');
    await fs.chmod(path.join(root, 'run.sh'), 0o644);
    await fs.rm(path.join(root, 'link'));
    writeFileSync(path.join(root, 'link'), 'a file now\n');
    await fs.rm(path.join(root, 'f2d'));
    writeTree(root, { 'f2d/x.txt': 'inside\n', 'f2d/y/z.txt': 'deeper\n' });
    await fs.rm(path.join(root, 'd2f'), { recursive: true });
    writeFileSync(path.join(root, 'd2f'), 'now a file\n');
    await fs.rm(path.join(root, 'deep'), { recursive: true });
    const second = (await repo.snapshotTree()).tree;

    for (const [from, to] of [
      [first, second],
      [second, first],
    ] as const) {
      for (const named of [undefined, ['f2d', 'd2f', 'link'], ['deep', 'mod.txt']]) {
        const plan = await repo.planRestore(from, to, named);
        const planned = plan.steps.map((s) => s.path);
        expect(planned.length).toBeGreaterThan(0);
        const listed = lsTreeOf(repo.gitDir, to, planned);
        expect(byPath(entriesAsListed(plan.entries, planned), planned)).toEqual(byPath(listed, planned));
        // A part of the plan (as a killed run's first half, or a rollback of some paths) too.
        const half = planned.filter((_, i) => i % 2 === 0);
        expect(byPath(entriesAsListed(plan.entries, half), half)).toEqual(
          byPath(lsTreeOf(repo.gitDir, to, half), half),
        );
      }
    }
  });

  it('an apply given the plan entries and sizes leaves the same folder as one that asks git', async () => {
    const files = {
      'mod.txt': 'v1\n',
      'gone.txt': 'deleted later\n',
      'run.sh': { content: '#!/bin/sh\n', mode: 0o755 },
      f2d: 'file that becomes a folder\n',
      'd2f/inner.txt': 'folder that becomes a file\n',
      'deep/a/b/c.txt': 'deep\n',
    };
    const change = async (root: string): Promise<void> => {
      writeFileSync(path.join(root, 'mod.txt'), 'v2\n');
      await fs.rm(path.join(root, 'gone.txt'));
      await fs.chmod(path.join(root, 'run.sh'), 0o644);
      await fs.rm(path.join(root, 'f2d'));
      writeTree(root, { 'f2d/x.txt': 'inside\n' });
      await fs.rm(path.join(root, 'd2f'), { recursive: true });
      writeFileSync(path.join(root, 'd2f'), 'now a file\n');
      await fs.rm(path.join(root, 'deep'), { recursive: true });
    };
    const results: Map<string, string>[] = [];
    for (const known of [false, true]) {
      const root = makeWorkspace(files);
      const { repo } = await openTemp(root);
      const target = (await repo.snapshotTree()).tree;
      await change(root);
      const safety = (await repo.snapshotTree()).tree;
      const plan = await repo.planRestore(safety, target);
      const planned = plan.steps.map((s) => s.path);
      const blobs = plan.steps.filter((s) => s.blob).map((s) => s.blob!);
      const sizes = await repo.blobSizes(blobs);
      const opts = known ? { entries: plan.entries, blobSizes: new Map(blobs.map((b, i) => [b, sizes[i]!])) } : {};
      const changed = await repo.applyPaths(target, planned, opts);
      expect(new Set(changed)).toEqual(new Set(planned));
      expect((await repo.snapshotTree()).tree).toBe(target);
      results.push(treeManifest(root));
    }
    expect(results[1]).toEqual(results[0]);
  });
});

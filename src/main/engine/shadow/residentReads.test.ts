/**
 * ShadowRepo's reads through its resident git processes (treeOf, commitExists, readFile, blobsAt, treeEntries,
 * diff, restore plans) against git's own one-process answers on a real workspace, including after the processes were killed.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace } from '../../../../test/helpers';
import { diffTreeFiles, diffTreeRaw } from '../git/diffTree';
import { gitEnv } from '../git/env';
import type { ResidentDiffTree } from '../git/residentDiffTree';
import type { ResidentReader } from '../git/residentReader';
import { GitRunner } from '../git/runner';
import type { ShadowRepo } from './ShadowRepo';
import { openTemp } from './testSupport';

afterAll(cleanupTempDirs);

const git = (repo: ShadowRepo, args: string[], input?: string): Buffer =>
  execFileSync('git', [`--git-dir=${repo.gitDir}`, ...args], { env: gitEnv(), maxBuffer: 64 << 20, input });

/** path → [mode, id] of every file of a tree, as ls-tree -r lists it. */
function listing(repo: ShadowRepo, tree: string): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const rec of git(repo, ['ls-tree', '-r', '-z', tree]).toString('utf8').split('\0')) {
    if (!rec) continue;
    const [mode, , id] = rec.slice(0, rec.indexOf('\t')).split(' ');
    out.set(rec.slice(rec.indexOf('\t') + 1), [mode!, id!]);
  }
  return out;
}

describe('ShadowRepo reads through resident processes', () => {
  it('answer as git does, also after the processes were killed', async () => {
    const root = makeWorkspace({
      'a.txt': 'a\n',
      'src/x.ts': 'export const x = 1;\n',
      'with space/ü.md': '# ü\n',
      'bin.dat': Buffer.from([0, 1, 2, 3, 255]),
      'deep/er/f.txt': 'f\n',
    });
    const { repo } = await openTemp(root);
    try {
      const t1 = (await repo.snapshotTree()).tree;
      const c1 = await repo.commit(t1, null, 'one');
      appendFileSync(path.join(root, 'a.txt'), 'more\n');
      renameSync(path.join(root, 'src/x.ts'), path.join(root, 'src/y.ts'));
      rmSync(path.join(root, 'bin.dat'));
      writeFileSync(path.join(root, 'new file.txt'), 'new\n');
      const t2 = (await repo.snapshotTree()).tree;
      const c2 = await repo.commit(t2, c1, 'two');
      const runner = new GitRunner({ gitDir: repo.gitDir, workTree: root, hooksDir: repo.gitDir });

      const check = async (): Promise<void> => {
        expect(await repo.commitExists(c2)).toBe(true);
        expect(await repo.commitExists(t2)).toBe(false); // a tree is no commit
        expect(await repo.commitExists('0'.repeat(40))).toBe(false);
        for (const c of [c1, c2]) {
          expect(
            git(repo, ['rev-parse', `${c}^{tree}`])
              .toString()
              .trim(),
          ).toBe(await repo.treeOf(c));
        }
        const files = listing(repo, t1);
        for (const [p, [mode, id]] of files) {
          const got = await repo.readFile(c1, p);
          expect(got?.mode, p).toBe(mode);
          expect(got?.bytes.equals(git(repo, ['cat-file', 'blob', id])), p).toBe(true);
        }
        expect(await repo.readFile(c1, 'src')).toBeNull(); // a folder
        expect(await repo.readFile(c1, 'nope/x')).toBeNull();
        const asked = [...files.keys(), 'src', 'missing.txt', 'a.txt/below'];
        expect(await repo.blobsAt(c1, asked)).toEqual(new Map([...files].map(([p, [, id]]) => [p, id])));
        expect(await repo.treeEntries(c1, asked)).toEqual(
          new Map([...files].map(([p, [mode, id]]) => [p, { mode, id }])),
        );
        expect(await repo.diff(c1, c2)).toEqual(await diffTreeFiles(runner, t1, t2));
        expect(await repo.diff(null, c2)).toEqual(
          await diffTreeFiles(runner, '4b825dc642cb6eb9a060e54bf8d69288fbee4904', t2),
        );
        // A restore's plan (the resident raw diff-tree): one step or skip per path git's own diff names.
        for (const [from, to] of [
          [t2, t1],
          [t1, t2],
        ] as const) {
          const plan = await repo.planRestore(from, to);
          const planned = [...plan.steps.map((x) => x.path), ...plan.skipped.map((x) => x.path)].sort();
          expect(planned).toEqual((await diffTreeRaw(runner, from, to)).map((r) => r.path).sort());
        }
      };
      await check();
      const inner = repo as unknown as {
        objects: ResidentReader;
        differ: ResidentDiffTree<unknown> | null;
        rawDiffer: ResidentDiffTree<unknown> | null;
      };
      inner.objects.process?.kill();
      inner.differ?.process?.kill('SIGKILL');
      inner.rawDiffer?.process?.kill('SIGKILL');
      await check();
    } finally {
      repo.close();
    }
  });

  it("asks a ref's type once when another process wrote its commit, and still tells a tag from a commit", async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const { repo } = await openTemp(root);
    try {
      const tree = (await repo.snapshotTree()).tree;
      // Written by git, as the hooks' process writes a session's checkpoints: this process has not seen it.
      const tip = git(repo, ['commit-tree', tree, '-m', 'by another process']).toString().trim();
      const tag = git(repo, ['mktag'], `object ${tip}\ntype commit\ntag t\ntagger T <t@t> 0 +0000\n\nt\n`);
      git(repo, ['update-ref', 'refs/retrace/sessions/s1', tip]);
      git(repo, ['update-ref', 'refs/retrace/labels/l1', tag.toString().trim()]);
      const inner = repo as unknown as { objects: ResidentReader };
      const asked: string[] = [];
      const type = inner.objects.type.bind(inner.objects);
      inner.objects.type = (id) => (asked.push(id), type(id));

      expect(await repo.readRef('refs/retrace/sessions/s1')).toBe(tip);
      expect(await repo.readRef('refs/retrace/sessions/s1')).toBe(tip);
      const child = await repo.commit(tree, tip, 'safety'); // the restore's safety checkpoint onto that tip
      expect(
        git(repo, ['rev-parse', `${child}^`])
          .toString()
          .trim(),
      ).toBe(tip);
      expect(asked.filter((id) => id === tip)).toHaveLength(1);
      // A label's tag is peeled to its commit, as rev-parse does, every time.
      expect(await repo.readRef('refs/retrace/labels/l1')).toBe(tip);
      expect(await repo.readRef('refs/retrace/labels/l1')).toBe(tip);
    } finally {
      repo.close();
    }
  });
});

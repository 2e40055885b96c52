/**
 * diffStatsMany (one `diff-tree --stdin` for many pairs, diffTreeBatch.ts) against the one-pair path and against
 * plain `git diff-tree -M --numstat` run here: same file counts and lines for every pair, on trees with renames,
 * binaries, a symlink, mode changes, deletions, empty diffs, repeated pairs and awkward names (a newline, a tab,
 * a name that reads like diff-tree's own echo of a pair).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace } from '../../../../test/helpers';
import { EMPTY_TREE } from '../git/objects';
import { openTemp } from './testSupport';

afterAll(cleanupTempDirs);

/** What git says, summed the way a checkpoint's stats are (a binary file counts, with no lines). */
function gitNumstat(
  gitDir: string,
  from: string,
  to: string,
): { files: number; insertions: number; deletions: number } {
  const out = execFileSync(
    'git',
    [`--git-dir=${gitDir}`, 'diff-tree', '-r', '-z', '-M', '--numstat', '--no-commit-id', from, to],
    { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }, maxBuffer: 64 << 20 },
  ).toString('utf8');
  const s = { files: 0, insertions: 0, deletions: 0 };
  const tokens = out.split('\0');
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === '') continue;
    const [ins, del, p] = t.split('\t');
    if (p === '') i += 2; // a rename: old and new names follow
    s.files++;
    if (ins !== '-') s.insertions += Number(ins);
    if (del !== '-') s.deletions += Number(del);
  }
  return s;
}

describe('ShadowRepo.diffStatsMany', () => {
  it('answers every pair as one diff-tree per pair does, and as git numstat does', async () => {
    const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i}`).join('\n') + '\n';
    const root = makeWorkspace({ 'a.txt': lines(40, 'a'), 'src/b.ts': lines(12, 'b'), 'keep.md': 'same\n' });
    const { repo } = await openTemp(root);
    const commits: string[] = [];
    const snap = async () => {
      const { tree } = await repo.snapshotTree();
      commits.push(await repo.commit(tree, commits.at(-1) ?? null, `step ${commits.length}`));
    };
    const w = (rel: string, body: string | Buffer) => {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), body);
    };
    await snap();
    await snap(); // no change
    mkdirSync(path.join(root, 'moved'));
    renameSync(path.join(root, 'a.txt'), path.join(root, 'moved/a2.txt')); // a rename with an edit
    w('moved/a2.txt', lines(40, 'a').replace('a line 3\n', 'changed\n') + 'tail without newline');
    w('bin.dat', Buffer.from([0, 1, 2, 3, 10, 0, 255]));
    await snap();
    w('bin.dat', Buffer.from([0, 9, 9, 10]));
    symlinkSync('src/b.ts', path.join(root, 'link'));
    chmodSync(path.join(root, 'src/b.ts'), 0o755);
    w('odd\nname\twith tab.txt', 'x\ny\n');
    const echo = `${'a'.repeat(40)} ${'b'.repeat(40)}\n`; // reads like diff-tree's echo of a pair
    w(`dir/${echo.trim().replace(' ', '_')}`, echo);
    await snap();
    rmSync(path.join(root, 'keep.md'));
    w('src/b.ts', lines(3, 'b') + lines(5, 'new'));
    w('ünï code.txt', 'é\n'.repeat(7));
    await snap();

    const pairs: [string | null, string][] = [[null, commits[0]!]];
    for (let i = 1; i < commits.length; i++) pairs.push([commits[i - 1]!, commits[i]!]);
    pairs.push([commits[0]!, commits.at(-1)!], [commits.at(-1)!, commits[0]!], [commits[2]!, commits[2]!]);
    pairs.push([commits[1]!, commits[2]!], [null, commits.at(-1)!]); // a pair asked twice, the whole tree

    const many = await repo.diffStatsMany(pairs);
    expect(many).toHaveLength(pairs.length);
    for (const [i, [from, to]] of pairs.entries()) {
      expect(many[i], `pair ${i}`).toEqual(await repo.diffStats(from, to));
      const a = from === null ? EMPTY_TREE : await repo.treeOf(from);
      expect(many[i]!.stats, `pair ${i} vs git`).toEqual(gitNumstat(repo.gitDir, a, await repo.treeOf(to)));
    }
    // The cases meant to be there are: a rename counted once, a binary with no lines, an empty diff.
    expect(many[1]!.stats).toEqual({ files: 0, insertions: 0, deletions: 0 }); // the step that changed nothing
    expect(many[2]!.changed).toEqual({ added: 1, modified: 1, deleted: 0 }); // bin.dat; a.txt → moved/a2.txt
    expect(many[2]!.stats).toEqual({ files: 2, insertions: 2, deletions: 1 });
    expect(await repo.diffStatsMany([])).toEqual([]);
  });
});

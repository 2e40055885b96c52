/**
 * git's tree merge as the revert uses it: conflicted regions counted per file (also for a file renamed on one
 * side, whose markers carry "<commit>:<path>"), replaceInTree's edits, and a plain refusal on a git too old.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RetraceError } from '../../../shared/errors';
import { cleanupTempDirs, makeWorkspace, tempDir } from '../../../../test/helpers';
import { openTemp } from '../shadow/testSupport';
import { mergeTrees } from './mergeTree';
import { EMPTY_TREE } from './objects';
import { GitRunner } from './runner';

afterAll(cleanupTempDirs);

const lines = (n: number, edit: Record<number, string> = {}): string =>
  Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

async function repoWith() {
  const { repo } = await openTemp(makeWorkspace({ 'x.txt': 'x\n' }));
  const tree = async (files: Record<string, string>) => {
    const edits = await Promise.all(
      Object.entries(files).map(async ([path, text]) => ({
        path,
        mode: '100644',
        id: await repo.writeBlob(Buffer.from(text)),
      })),
    );
    return repo.replaceInTree(EMPTY_TREE, edits);
  };
  return { repo, tree };
}

describe('mergeTrees', () => {
  it('a clean merge keeps both sides; a conflicting one counts each marked region', async () => {
    const { repo, tree } = await repoWith();
    const base = await tree({ 'a.txt': lines(20), 'b.txt': 'b\n' });
    const clean = await repo.mergeTrees({
      base,
      ours: await tree({ 'a.txt': lines(20, { 2: 'ours' }), 'b.txt': 'b\n' }),
      theirs: await tree({ 'a.txt': lines(20, { 18: 'theirs' }), 'b.txt': 'b\n' }),
    });
    expect(clean.conflicts).toEqual([]);
    expect((await repo.readFile(clean.tree, 'a.txt'))!.bytes.toString()).toBe(lines(20, { 2: 'ours', 18: 'theirs' }));

    const conflicted = await repo.mergeTrees({
      base,
      ours: await tree({ 'a.txt': lines(20, { 2: 'ours', 18: 'ours' }), 'b.txt': 'b\n' }),
      theirs: await tree({ 'a.txt': lines(20, { 2: 'theirs', 18: 'theirs' }), 'b.txt': 'b2\n' }),
    });
    expect(conflicted.conflicts).toEqual([{ path: 'a.txt', hunks: 2 }]);
    expect((await repo.readFile(conflicted.tree, 'b.txt'))!.bytes.toString()).toBe('b2\n');
  });

  it('a file renamed on one side and changed on both conflicts under its new name with its hunk count', async () => {
    const { repo, tree } = await repoWith();
    const merged = await repo.mergeTrees({
      base: await tree({ 'old.txt': lines(30) }),
      ours: await tree({ 'new.txt': lines(30, { 3: 'ours' }) }),
      theirs: await tree({ 'old.txt': lines(30, { 3: 'theirs' }) }),
    });
    expect(merged.conflicts).toEqual([{ path: 'new.txt', hunks: 1 }]);
    expect((await repo.readFile(merged.tree, 'new.txt'))!.bytes.toString()).toMatch(/^<<<<<<< [0-9a-f]{40}:new\.txt$/m);
  });

  it('refuses plainly on a git older than 2.38 (no merge-tree --write-tree)', async () => {
    // Never reaches git: the version decides first.
    const dir = tempDir();
    const git = new GitRunner({ gitDir: dir, workTree: dir, hooksDir: dir });
    const e = await mergeTrees(git, '2.37.1', { base: EMPTY_TREE, ours: EMPTY_TREE, theirs: EMPTY_TREE }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(RetraceError);
    expect((e as RetraceError).code).toBe('E_UNSUPPORTED');
  });
});

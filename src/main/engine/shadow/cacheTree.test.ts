/**
 * The cache-tree kept through an edit (cacheTree.ts): the trees on the way to an edited path are invalid, every other
 * tree keeps its id. That git's next write-tree then writes the folder's tree is splitIndexEdit.test.ts's.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { invalidateCacheTree } from './cacheTree';
import { parseFile } from './indexRead';

afterAll(cleanupTempDirs);

const latin1 = (s: string): string => Buffer.from(s).toString('latin1');

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

/** Each tree of the extension as "path count subtrees" (count -1: invalid), in the extension's order. */
function trees(data: Buffer): string[] {
  const out: string[] = [];
  let at = 0;
  const walk = (parent: string | null): void => {
    const nul = data.indexOf(0, at);
    const lf = data.indexOf(10, nul);
    const [count, subtrees] = data
      .toString('latin1', nul + 1, lf)
      .split(' ')
      .map(Number) as [number, number];
    const name = data.toString('latin1', at, nul);
    const full = parent === null ? '.' : parent === '.' ? name : `${parent}/${name}`;
    out.push(`${full} ${count} ${subtrees}`);
    at = lf + 1 + (count >= 0 ? 20 : 0);
    for (let i = 0; i < subtrees; i++) walk(full);
  };
  walk(null);
  return out;
}

describe('invalidateCacheTree', () => {
  it('marks invalid exactly the trees that hold an edited path', () => {
    const root = tempDir('retrace-cache-tree-');
    const git = (...args: string[]): string => execFileSync('git', ['-C', root, ...args], { env }).toString();
    git('init', '-q');
    git('config', 'core.splitIndex', 'false');
    for (const rel of ['a/x.txt', 'a/b/y.txt', 'a/bb/z.txt', 'c/w.txt', 'top.txt', 'é/ü.txt']) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), rel);
    }
    git('add', '-A');
    git('write-tree');
    const index = path.join(root, '.git/index');
    const tree = parseFile(readFileSync(index)).extensions.find((x) => x.signature === 'TREE')!.data;
    expect(trees(tree).every((t) => !t.includes(' -1 '))).toBe(true);

    const edited = invalidateCacheTree(tree, [Buffer.from('a/b/y.txt'), Buffer.from('é/ü.txt')]);
    const invalid = new Set(['.', 'a', 'a/b', latin1('é')]); // names as trees() reads them: bytes as latin1
    expect(trees(edited)).toEqual(
      trees(tree).map((t) => (invalid.has(t.split(' ')[0]!) ? t.replace(/ \d+ /, ' -1 ') : t)),
    );
    expect(invalidateCacheTree(edited, [Buffer.from('a/b/y.txt')]).equals(edited)).toBe(true); // invalid stays so
    expect(() => invalidateCacheTree(tree.subarray(0, tree.length - 3), [])).toThrow();
  });
});

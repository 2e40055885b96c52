/**
 * editIndex gives paths the entries it is told and removes the ones it is told, and leaves git's view of every
 * other entry as it was — except that an entry git could only trust through its racy-timestamp rule (its mtime not
 * older than the old index file's) is smudged, since the new index file is newer.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, indexedSizes, tempDir } from '../../../../test/helpers';
import { GitRunner } from '../git/runner';
import { editIndex } from './indexEdit';
import { indexMode, statFields, type IndexEntry } from './indexFile';

afterAll(cleanupTempDirs);

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

function setup() {
  const root = tempDir('retrace-index-edit-');
  const git = (...args: string[]): string => execFileSync('git', ['-C', root, ...args], { env }).toString();
  git('init', '-q');
  git('config', 'core.splitIndex', 'false'); // the whole rewrite; a split index: splitIndexEdit.test.ts
  git('config', 'index.version', '4');
  for (const name of ['a.txt', 'b.txt', 'c/d.txt', 'c/e.txt']) {
    execFileSync('mkdir', ['-p', path.dirname(path.join(root, name))]);
    writeFileSync(path.join(root, name), `${name}\n`);
  }
  git('add', '-A');
  const runner = new GitRunner({ gitDir: path.join(root, '.git'), workTree: root, hooksDir: tempDir() });
  const index = path.join(root, '.git/index');
  const sizes = (): Map<string, number> => indexedSizes(git);
  const entryOf = (rel: string, content: string): IndexEntry => {
    writeFileSync(path.join(root, rel), content);
    const oid = git('hash-object', '-w', rel).trim();
    const st = lstatSync(path.join(root, rel), { bigint: true });
    return { path: rel, mode: indexMode(st), oid, stat: statFields(st) };
  };
  return { root, git, runner, index, sizes, entryOf };
}

describe('editIndex', () => {
  it('replaces and removes what it is told, and git finds the files as their entries say', () => {
    const { root, git, runner, index, entryOf } = setup();
    utimesSync(index, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000)); // nothing racy here
    const edited = entryOf('c/d.txt', 'new content\n');
    execFileSync('rm', [path.join(root, 'b.txt')]);
    expect(
      editIndex(
        runner,
        new Map([
          ['c/d.txt', edited],
          ['b.txt', null],
        ]),
      ),
    ).toBe(true);
    expect(git('ls-files').trim().split('\n')).toEqual(['a.txt', 'c/d.txt', 'c/e.txt']);
    expect(git('ls-files', '-s', 'c/d.txt')).toContain(edited.oid as string);
    expect(git('diff', '--name-only')).toBe('');
    expect(readFileSync(index).includes(Buffer.from('link'))).toBe(false);
  });

  it('a path with no entry leaves the index exactly as it was', () => {
    const { runner, index, entryOf } = setup();
    const before = readFileSync(index);
    expect(editIndex(runner, new Map([['elsewhere.txt', entryOf('elsewhere.txt', 'x')]]))).toBe(false);
    expect(readFileSync(index).equals(before)).toBe(true);
  });

  it('smudges the entries that are racy against the old index file, and only those', () => {
    const { git, runner, index, sizes, entryOf } = setup();
    const edited = entryOf('a.txt', 'changed\n');
    // The old index file older than every file: each entry's mtime is not older than it, so git would compare
    // their contents; in the new (newer) index only a smudged size keeps them from being trusted.
    utimesSync(index, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect(editIndex(runner, new Map([['a.txt', edited]]))).toBe(true);
    expect(sizes()).toEqual(
      new Map([
        ['a.txt', 8],
        ['b.txt', 0],
        ['c/d.txt', 0],
        ['c/e.txt', 0],
      ]),
    );
    expect(git('diff', '--name-only')).toBe(''); // compared by content: unchanged
    // An old index file newer than every file: nothing is smudged.
    utimesSync(index, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    git('update-index', '--really-refresh');
    utimesSync(index, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    expect(editIndex(runner, new Map([['a.txt', entryOf('a.txt', 'again\n')]]))).toBe(true);
    expect([...sizes().values()].every((n) => n > 0)).toBe(true);
  });
});

/**
 * A full scan's two walks run as two processes side by side in a large folder (lsFiles.ts): either way the
 * scan must answer exactly what one `ls-files --others --modified --deleted` answers, on a folder with every
 * kind of change; a failure of either process fails the call.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { gitEnv } from './env';
import { GitError } from './errors';
import { listWorkTreeChanges } from './lsFiles';
import { GitRunner } from './runner';

afterAll(cleanupTempDirs);

function setUp(): { git: GitRunner; oneProcess: () => string[] } {
  const root = tempDir('retrace-lsfiles-');
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], {
      cwd: root,
      env: gitEnv(),
    }).toString();
  git('init', '-q');
  const write = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  for (let i = 0; i < 40; i++) write(`src/d${i % 5}/f${i}.ts`, `export const v${i} = ${i};\n`);
  write('.gitignore', 'build/\n*.log\n');
  write('gone.txt', 'soon deleted\n');
  write('kind.txt', 'becomes a link\n');
  git('add', '-A');
  // Then every kind of change: edited, deleted, type change, new (plain, in a new folder, ignored), a nested
  // repository (listed as a folder git does not enter).
  write('src/d1/f6.ts', 'edited\n');
  unlinkSync(path.join(root, 'gone.txt'));
  unlinkSync(path.join(root, 'kind.txt'));
  symlinkSync('src/d0/f0.ts', path.join(root, 'kind.txt'));
  write('new.md', 'new\n');
  write('fresh/dir/a.txt', 'a\n');
  write('build/out.js', 'ignored\n');
  write('debug.log', 'ignored\n');
  mkdirSync(path.join(root, 'nested'));
  execFileSync('git', ['init', '-q'], { cwd: path.join(root, 'nested'), env: gitEnv() });
  write('nested/inside.txt', 'x\n');
  const runner = new GitRunner({
    gitDir: path.join(root, '.git'),
    workTree: root,
    hooksDir: tempDir('retrace-hooks-'),
  });
  const oneProcess = (): string[] =>
    git('ls-files', '-z', '-t', '--others', '--modified', '--deleted', '--exclude-standard')
      .split('\0')
      .filter(Boolean);
  return { git: runner, oneProcess };
}

describe('listWorkTreeChanges (full scan)', () => {
  it.for([true, false])(
    'answers what one ls-files process answers, in its order (side by side: %s)',
    async (sideBySide) => {
      const { git, oneProcess } = setUp();
      const expected = { others: [] as string[], modified: [] as string[], deleted: [] as string[] };
      for (const line of oneProcess()) {
        const p = line.slice(2);
        if (line[0] === '?') expected.others.push(p);
        else if (line[0] === 'R') expected.deleted.push(p);
        else expected.modified.push(p);
      }
      const got = await listWorkTreeChanges(git, undefined, sideBySide);
      expect({ others: got.others, modified: got.modified, deleted: got.deleted }).toEqual(expected);
      // The folder has each kind, so the comparison above covers each.
      expect(got.others).toEqual(expect.arrayContaining(['new.md', 'fresh/dir/a.txt', 'nested/']));
      expect(got.modified).toEqual(expect.arrayContaining(['src/d1/f6.ts', 'kind.txt']));
      expect(got.deleted).toEqual(['gone.txt']);
    },
  );

  it('fails when either process fails, and the queue goes on after it', async () => {
    const { git } = setUp();
    const failing = git.execSideBySide([
      ['ls-files', '-z', '--others'],
      ['cat-file', '-t', '0123456789012345678901234567890123456789'],
    ]);
    await expect(failing).rejects.toBeInstanceOf(GitError);
    expect((await listWorkTreeChanges(git, undefined, true)).deleted).toEqual(['gone.txt']);
  });
});

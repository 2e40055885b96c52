/** Commits written in-process (commitObject.ts) must be the very objects `git commit-tree` writes. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempDir } from '../../../../test/helpers';
import { openTemp } from '../shadow/testSupport';
import { commitBody, gitTimezone, storedVerbatim } from './commitObject';
import { gitEnv } from './env';
import { objectId } from './looseObject';
import { EMPTY_TREE } from './objects';
import { SHADOW_IDENTITY } from './runner';

afterAll(cleanupTempDirs);

const MESSAGES = [
  'one line, no newline',
  'subject\n\nbody\n',
  '\n\nleading blank lines\n\n\nand trailing ones\n\n\n',
  '',
  'ünïcödé ✓ 🎉 中文\r\nCRLF\ttab',
  '{"json":"as a checkpoint carries it","n":1}\n',
];

/** `git commit-tree` with the shadow's identity at a fixed time, in the repository at gitDir. */
function gitCommitTree(gitDir: string, tree: string, parent: string | null, message: string, date: string): string {
  return execFileSync(
    'git',
    [
      `--git-dir=${gitDir}`,
      '-c',
      `user.name=${SHADOW_IDENTITY.name}`,
      '-c',
      `user.email=${SHADOW_IDENTITY.email}`,
      'commit-tree',
      tree,
      ...(parent ? ['-p', parent] : []),
      '-F',
      '-',
    ],
    { env: { ...gitEnv(), GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }, input: Buffer.from(message, 'utf8') },
  )
    .toString()
    .trim();
}

describe('commit objects written in-process', () => {
  it('have the id git commit-tree gives the same tree, parent, message and time', () => {
    const gitDir = path.join(tempDir('retrace-commit-'), 'repo.git');
    execFileSync('git', ['init', '-q', '--bare', gitDir], { env: gitEnv() });
    let parent: string | null = null;
    for (const offset of [0, 90, -480, 330, -150, 765]) {
      for (const message of MESSAGES) {
        const when = { seconds: 1_700_000_000 + offset, offsetMinutes: offset };
        const mine = objectId('commit', commitBody(EMPTY_TREE, parent, message, when));
        const date = `${when.seconds} ${gitTimezone(offset)}`;
        expect(mine, JSON.stringify({ message, offset })).toBe(
          gitCommitTree(gitDir, EMPTY_TREE, parent, message, date),
        );
        parent = mine;
      }
    }
    expect(gitTimezone(-30)).toBe('-0030');
  });

  it('leaves messages git would rewrite to git', () => {
    expect(MESSAGES.every(storedVerbatim)).toBe(true);
    for (const odd of [
      'nul \0 inside',
      'non-character \uFFFE',
      '\uFDD0',
      'lone \uD800 surrogate',
      '\u{1FFFF}',
      '\u{10FFFE}',
    ])
      expect(storedVerbatim(odd), JSON.stringify(odd)).toBe(false);
  });

  it('are what ShadowRepo.commit writes: same id as git at the same time, fsck clean, odd messages still committed', async () => {
    const { repo } = await openTemp(makeWorkspace());
    try {
      const { tree } = await repo.snapshotTree();
      let parent: string | null = null;
      for (const message of [...MESSAGES, 'through git: \uFFFF']) {
        const hash = await repo.commit(tree, parent, message);
        const body = execFileSync('git', [`--git-dir=${repo.gitDir}`, 'cat-file', 'commit', hash], { env: gitEnv() });
        const date = /^committer .* (\d+ [+-]\d{4})$/m.exec(body.toString('utf8'))![1]!;
        expect(body.toString('utf8')).toContain(
          `\nauthor ${SHADOW_IDENTITY.name} <${SHADOW_IDENTITY.email}> ${date}\n`,
        );
        if (storedVerbatim(message)) expect(hash).toBe(gitCommitTree(repo.gitDir, tree, parent, message, date));
        expect(await repo.treeOf(hash)).toBe(tree);
        parent = hash;
      }
      // The local zone as git would write it now.
      const now = new Date();
      const head = execFileSync('git', [`--git-dir=${repo.gitDir}`, 'cat-file', 'commit', parent!], { env: gitEnv() });
      expect(head.toString()).toContain(` ${gitTimezone(-now.getTimezoneOffset())}\n`);
      execFileSync('git', [`--git-dir=${repo.gitDir}`, 'update-ref', 'refs/retrace/test', parent!], { env: gitEnv() });
      const fsck = execFileSync('git', [`--git-dir=${repo.gitDir}`, 'fsck', '--strict', '--no-dangling'], {
        env: gitEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(fsck.toString()).toBe('');
      // A tree that does not exist: git's own refusal, as before.
      await expect(repo.commit('1'.repeat(40), null, 'x')).rejects.toThrow();
    } finally {
      repo.close();
    }
  });
});

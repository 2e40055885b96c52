/** repair.ts in-process: the cheap checks are quiet on a healthy repository and repairs are idempotent. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { looksLikeCorruption, quickCheck, repairShadowRepo } from '../../src/main/engine/shadow/repair';
import { cleanupTempDirs, fsck, gitAt, refs, tempDir } from '../helpers/index';

afterAll(cleanupTempDirs);

/** A bare repository with a three-commit chain under refs/retrace/sessions/s, work tree = `root`. */
function chain(): { gitDir: string; root: string; hashes: string[] } {
  const root = tempDir('retrace-repair-ws-');
  const gitDir = join(tempDir('retrace-repair-data-'), 'shadow.git');
  execFileSync('git', ['init', '-q', '--bare', gitDir]);
  const hashes: string[] = [];
  for (let i = 1; i <= 3; i++) {
    writeFileSync(join(root, 'f.txt'), `v${i}\n`);
    const blob = execFileSync('git', [`--git-dir=${gitDir}`, 'hash-object', '-w', join(root, 'f.txt')], {
      encoding: 'utf8',
    }).trim();
    const tree = execFileSync('git', [`--git-dir=${gitDir}`, 'mktree'], {
      input: `100644 blob ${blob}\tf.txt\n`,
      encoding: 'utf8',
    }).trim();
    const args = ['commit-tree', tree, ...(hashes.length ? ['-p', hashes.at(-1)!] : []), '-m', `c${i}`];
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: 'r',
      GIT_AUTHOR_EMAIL: 'r@l',
      GIT_COMMITTER_NAME: 'r',
      GIT_COMMITTER_EMAIL: 'r@l',
    };
    hashes.push(execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8', env }).trim());
  }
  gitAt(gitDir, ['update-ref', 'refs/retrace/sessions/s', hashes[2]!]);
  return { gitDir, root, hashes };
}

describe('shadow repair (unit)', () => {
  it('recognises corruption in git’s words, and not ordinary errors', () => {
    for (const t of [
      'error: object file .git/objects/ab/cd is empty',
      'fatal: loose object 1234567890abcdef1234567890abcdef12345678 (stored in x) is corrupt',
      'error: bad signature 0x00000000\nfatal: index file corrupt',
      'fatal: unable to read tree 1234567890abcdef1234567890abcdef12345678',
      'fatal: unexpected line in /x/shadow.git/packed-refs: garbage',
      "error: cannot lock ref 'refs/retrace/sessions/s': unable to resolve reference 'refs/retrace/sessions/s': reference broken",
      'fatal: not a git repository: /x/shadow.git',
    ])
      expect(looksLikeCorruption(t), t).toBe(true);
    for (const t of [
      "fatal: ambiguous argument 'nope': unknown revision",
      "fatal: Unable to create '/x/index.lock': File exists.",
      'error: pathspec did not match',
    ])
      expect(looksLikeCorruption(t), t).toBe(false);
  });

  it('a healthy repository: quickCheck finds nothing and repair changes nothing', async () => {
    const { gitDir, root, hashes } = chain();
    expect(await quickCheck(gitDir, { objects: true })).toEqual([]);
    const before = [...refs(gitDir)];
    const out = await repairShadowRepo({ gitDir, workTree: root, sessions: [{ id: 's', hashes }] });
    expect(out).toEqual({ reports: [], unavailable: [] });
    expect([...refs(gitDir)]).toEqual(before);
  });

  it('a second repair after a real one reports nothing (idempotent)', async () => {
    const { gitDir, root, hashes } = chain();
    writeFileSync(join(gitDir, 'refs/retrace/sessions/s'), hashes[2]!.slice(0, 9));
    const first = await repairShadowRepo({ gitDir, workTree: root, sessions: [{ id: 's', hashes }] });
    expect(first.reports.length).toBeGreaterThan(0);
    expect(refs(gitDir).get('refs/retrace/sessions/s')).toBe(hashes[2]);
    expect(await repairShadowRepo({ gitDir, workTree: root, sessions: [{ id: 's', hashes }] })).toEqual({
      reports: [],
      unavailable: [],
    });
    expect(fsck(gitDir).ok).toBe(true);
  });
});

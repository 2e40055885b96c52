/**
 * writeLooseObjectSync (an import's objects, issue 15) against git itself: the same ids as `git hash-object -w`,
 * the same bytes read back by git, a repository fsck finds clean, and an object written twice stays one file.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { encodeTree } from './treeObject';
import { writeLooseObjectSync } from './looseObject';

afterAll(cleanupTempDirs);

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (gitDir: string, args: string[], input?: Buffer) =>
  execFileSync('git', [`--git-dir=${gitDir}`, ...args], { env, ...(input ? { input } : {}) });

describe('writeLooseObjectSync', () => {
  it('writes what git writes: same ids, same bytes, fsck clean', () => {
    const gitDir = path.join(tempDir('retrace-loose-'), 'repo.git');
    execFileSync('git', ['init', '-q', '--bare', gitDir], { env });
    const blobs = [Buffer.from('hello\n'), Buffer.from([0, 1, 2, 255]), Buffer.alloc(0), Buffer.from('é'.repeat(5000))];
    const ids = blobs.map((b) => writeLooseObjectSync(gitDir, 'blob', b));
    for (const [i, b] of blobs.entries()) {
      expect(ids[i]).toBe(git(gitDir, ['hash-object', '--stdin'], b).toString().trim());
      expect(git(gitDir, ['cat-file', 'blob', ids[i]!]).equals(b)).toBe(true);
    }
    const tree = writeLooseObjectSync(
      gitDir,
      'tree',
      encodeTree([
        { mode: '100644', name: Buffer.from('a.txt'), id: ids[0]! },
        { mode: '100755', name: Buffer.from('bin'), id: ids[1]! },
      ]),
    );
    expect(git(gitDir, ['ls-tree', tree]).toString()).toBe(
      `100644 blob ${ids[0]}\ta.txt\n100755 blob ${ids[1]}\tbin\n`,
    );
    const body = Buffer.from(
      `tree ${tree}\nauthor Retrace <retrace@localhost> 1700000000 +0000\ncommitter Retrace <retrace@localhost> 1700000000 +0000\n\nstep\n`,
    );
    const commit = writeLooseObjectSync(gitDir, 'commit', body);
    expect(commit).toBe(git(gitDir, ['hash-object', '-t', 'commit', '--stdin'], body).toString().trim());
    expect(
      git(gitDir, ['rev-parse', `${commit}^{tree}`])
        .toString()
        .trim(),
    ).toBe(tree);
    expect(writeLooseObjectSync(gitDir, 'blob', blobs[0]!)).toBe(ids[0]); // again: found, not rewritten
    const dir = path.join(gitDir, 'objects', ids[0]!.slice(0, 2));
    expect(readdirSync(dir).filter((n) => n.startsWith('tmp_obj_'))).toEqual([]);
    git(gitDir, ['fsck', '--strict', '--no-dangling']);
  });
});

/** Refs moved in-process (looseRefs.ts) must be what git sees, and whatever they leave to git must stay git's. */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempDir } from '../../../../test/helpers';
import { openTemp } from '../shadow/testSupport';
import { gitEnv } from './env';
import { ASK_GIT, LooseRefs } from './looseRefs';
import { ResidentReader } from './residentReader';
import { GitRunner } from './runner';

afterAll(cleanupTempDirs);

function setup(): { gitDir: string; run: (args: string[]) => string; refs: LooseRefs; reader: ResidentReader } {
  const gitDir = path.join(tempDir('retrace-refs-'), 'r.git');
  const run = (args: string[]): string =>
    execFileSync('git', [`--git-dir=${gitDir}`, '-c', 'user.name=T', '-c', 'user.email=t@t', ...args], {
      env: gitEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
      .toString()
      .trim();
  execFileSync('git', ['init', '-q', '--bare', gitDir], { env: gitEnv() });
  run(['mktree']); // the empty tree, written (commits below name it)
  const reader = new ResidentReader(new GitRunner({ gitDir, workTree: path.dirname(gitDir), hooksDir: gitDir }));
  return { gitDir, run, refs: new LooseRefs(gitDir, reader), reader };
}

const commitOf = (run: (a: string[]) => string, msg: string, parent?: string): string =>
  run(['commit-tree', '4b825dc642cb6eb9a060e54bf8d69288fbee4904', ...(parent ? ['-p', parent] : []), '-m', msg]);

describe('LooseRefs', () => {
  it('creates, checks and moves refs as git sees them, loose and packed', async () => {
    const { gitDir, run, refs, reader } = setup();
    try {
      const c1 = commitOf(run, 'one');
      const c2 = commitOf(run, 'two', c1);
      const c3 = commitOf(run, 'three', c2);
      const ref = 'refs/retrace/sessions/s-1.x';
      expect(await refs.read(ref)).toBeNull();
      expect(await refs.update(ref, c1, null)).toBeUndefined(); // handled in-process
      expect(run(['rev-parse', ref])).toBe(c1);
      expect(run(['for-each-ref', '--format=%(objectname) %(refname)'])).toBe(`${c1} ${ref}`);
      expect(await refs.read(ref)).toBe(c1);
      // Mismatches are left to git (which words them): "must not exist" and "wrong old value".
      expect(await refs.update(ref, c2, null)).toBe(ASK_GIT);
      expect(await refs.update(ref, c2, c3)).toBe(ASK_GIT);
      expect(run(['rev-parse', ref])).toBe(c1);
      expect(existsSync(path.join(gitDir, `${ref}.lock`))).toBe(false);
      expect(await refs.update(ref, c2, c1)).toBeUndefined();
      expect(run(['rev-parse', ref])).toBe(c2);
      expect(await refs.update(ref, c3)).toBeUndefined(); // no check
      expect(run(['rev-parse', ref])).toBe(c3);

      // Packed: the value is read from packed-refs, checked against it, and the new value is loose.
      run(['pack-refs', '--all']);
      expect(existsSync(path.join(gitDir, ref))).toBe(false);
      expect(await refs.read(ref)).toBe(c3);
      expect(await refs.update(ref, c1, c2)).toBe(ASK_GIT);
      expect(await refs.update(ref, c1, c3)).toBeUndefined();
      expect(run(['rev-parse', ref])).toBe(c1);
      expect(await refs.update('refs/retrace/sessions/new', c2, null)).toBeUndefined();
      expect(run(['for-each-ref', '--format=%(objectname) %(refname)']).split('\n').sort()).toEqual(
        [`${c1} ${ref}`, `${c2} refs/retrace/sessions/new`].sort(),
      );
      // A packed ref that must not exist does exist.
      run(['pack-refs', '--all']);
      expect(await refs.update('refs/retrace/sessions/new', c3, null)).toBe(ASK_GIT);
      expect(run(['fsck', '--no-dangling'])).toBe('');
    } finally {
      reader.close();
    }
  });

  it('leaves the unusual to git: stale locks, tags, symbolic refs, folders in the way, missing objects', async () => {
    const { gitDir, run, refs, reader } = setup();
    try {
      const c1 = commitOf(run, 'one');
      run(['update-ref', 'refs/retrace/a/b', c1]);
      expect(await refs.update('refs/retrace/a', c1)).toBe(ASK_GIT); // a folder of refs is there
      expect(await refs.update('refs/retrace/a/b/c', c1)).toBe(ASK_GIT); // a ref is where a folder would be
      writeFileSync(path.join(gitDir, 'refs/retrace/a/b.lock'), '');
      expect(await refs.update('refs/retrace/a/b', c1)).toBe(ASK_GIT); // a lock: git's own error follows
      expect(existsSync(path.join(gitDir, 'refs/retrace/a/b.lock'))).toBe(true); // not ours to remove
      run(['tag', '-a', '-m', 'label', 'v', c1]);
      run(['update-ref', 'refs/retrace/labels/l', run(['rev-parse', 'refs/tags/v'])]);
      expect(await refs.read('refs/retrace/labels/l')).toBe(ASK_GIT); // peeled by git
      run(['symbolic-ref', 'refs/retrace/sym', 'refs/retrace/a/b']);
      expect(await refs.read('refs/retrace/sym')).toBe(ASK_GIT);
      expect(await refs.update('refs/retrace/x', '1'.repeat(40))).toBe(ASK_GIT); // no such object
      expect(await refs.update('refs/heads/main', c1)).toBe(ASK_GIT); // not ours
      expect(await refs.update('refs/retrace/.hidden', c1)).toBe(ASK_GIT); // a name git may refuse
    } finally {
      reader.close();
    }
  });

  it('through ShadowRepo: a stale lock gives the error git gives, mismatches stay ref-mismatch errors', async () => {
    const { repo } = await openTemp(makeWorkspace());
    try {
      const { tree } = await repo.snapshotTree();
      const c1 = await repo.commit(tree, null, 'one');
      const c2 = await repo.commit(tree, c1, 'two');
      const ref = 'refs/retrace/sessions/s';
      await repo.updateRef(ref, c1, null);
      await expect(repo.updateRef(ref, c2, null)).rejects.toMatchObject({ code: 'E_GIT' });
      await expect(repo.updateRef(ref, c2, c2)).rejects.toMatchObject({ code: 'E_GIT' });
      expect(await repo.readRef(ref)).toBe(c1);
      writeFileSync(path.join(repo.gitDir, `${ref}.lock`), '');
      await expect(repo.updateRef(ref, c2, c1)).rejects.toMatchObject({ code: 'E_LOCKED' });
    } finally {
      repo.close();
    }
  });
});

import { execFileSync } from 'node:child_process';
import { promises as fs, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RetraceError } from '../../../shared/errors';
import { cleanupTempDirs, makeWorkspace } from '../../../../test/helpers';
import { openTemp } from './testSupport';

afterAll(cleanupTempDirs);

const codeOf = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof RetraceError ? e.code : `not a RetraceError: ${String(e)}`),
  );

describe('ShadowRepo commits, refs and names', () => {
  it('opens idempotently with its own config, no hooks, no .git in the folder', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const { ws, repo } = await openTemp(root);
    const { ShadowRepo } = await import('./ShadowRepo');
    await ShadowRepo.open(ws);
    expect(repo.gitDir).toBe(path.join(ws.dir, 'shadow.git'));
    expect(await fs.readdir(path.join(repo.gitDir, 'hooks')).catch(() => [])).toEqual([]);
    await expect(fs.access(path.join(root, '.git'))).rejects.toThrow();
    // In effect for a plain git run: the config includes our settings file (git/init.ts).
    const cfg = (key: string): string =>
      execFileSync('git', ['config', '--file', path.join(repo.gitDir, 'config'), '--includes', '--get', key])
        .toString()
        .trim();
    expect(cfg('core.autocrlf')).toBe('false');
    expect(cfg('core.bare')).toBe('false');
  });

  it('commits every checkpoint (empty changes too) with a fixed identity and moves refs with a check', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const { repo } = await openTemp(root);
    const { tree } = await repo.snapshotTree();
    const c1 = await repo.commit(tree, null, 'first\n\nwith "quotes" and ünïcode');
    const c2 = await repo.commit(tree, c1, 'no change');
    expect(c2).not.toBe(c1);
    expect(await repo.parentOf(c2)).toBe(c1);
    expect(await repo.parentOf(c1)).toBeNull();
    expect(await repo.treeOf(c2)).toBe(tree);
    const author = execFileSync('git', [`--git-dir=${repo.gitDir}`, 'log', '-1', '--format=%an <%ae>|%B', c1], {
      encoding: 'utf8',
    });
    expect(author).toMatch(/^Retrace <retrace@localhost>\|first\n\nwith "quotes" and ünïcode/);

    const ref = 'refs/retrace/sessions/s1';
    expect(await repo.readRef(ref)).toBeNull();
    await repo.updateRef(ref, c1, null);
    expect(await codeOf(repo.updateRef(ref, c2, null))).toBe('E_GIT'); // must not exist
    expect(await codeOf(repo.updateRef(ref, c2, c2))).toBe('E_GIT'); // wrong old value
    await repo.updateRef(ref, c2, c1);
    expect(await repo.readRef(ref)).toBe(c2);
    await repo.updateRef('refs/retrace/safety/r1', c1);
    expect(await repo.listRefs('refs/retrace/')).toEqual([
      { ref: 'refs/retrace/safety/r1', hash: c1 },
      { ref, hash: c2 },
    ]);
    await repo.deleteRef('refs/retrace/safety/r1');
    expect(await repo.listRefs('refs/retrace/safety/')).toEqual([]);
    expect(await codeOf(repo.updateRef('HEAD', c1))).toBe('E_INVALID_INPUT');
    expect(await repo.commitExists(c1)).toBe(true);
    expect(await repo.commitExists(tree)).toBe(false);
    expect(await repo.commitExists('0'.repeat(40))).toBe(false);
  });

  it('resolves full hashes and unique prefixes; unknown and ambiguous names fail clearly', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const { repo } = await openTemp(root);
    const { tree } = await repo.snapshotTree();
    const commits: string[] = [];
    let parent: string | null = null;
    for (let i = 0; i < 40; i++) {
      parent = await repo.commit(tree, parent, `c${i}`);
      commits.push(parent);
    }
    await repo.updateRef('refs/retrace/sessions/s', parent!);
    const c = commits[3]!;
    expect(await repo.resolveCommit(c)).toBe(c);
    expect(await repo.resolveCommit(c.toUpperCase())).toBe(c);
    expect(await repo.resolveCommit(c.slice(0, 7))).toBe(c);
    expect(await repo.resolveCommit(c.slice(0, 12))).toBe(c);
    expect(await codeOf(repo.resolveCommit(c.slice(0, 6)))).toBe('E_UNKNOWN_CHECKPOINT');
    expect(await codeOf(repo.resolveCommit('zzzzzzz'))).toBe('E_UNKNOWN_CHECKPOINT');
    expect(await codeOf(repo.resolveCommit('f'.repeat(40)))).toBe('E_UNKNOWN_CHECKPOINT');
    expect(await codeOf(repo.resolveCommit(tree))).toBe('E_UNKNOWN_CHECKPOINT'); // a tree is no checkpoint
    // an unreachable commit is not found by prefix
    const stray = await repo.commit(tree, null, 'stray');
    expect(await codeOf(repo.resolveCommit(stray.slice(0, 10)))).toBe('E_UNKNOWN_CHECKPOINT');
    expect(await repo.resolveCommit(stray)).toBe(stray);
  });

  it('names ambiguous 7-hex prefixes with E_AMBIGUOUS and their candidates', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const { repo } = await openTemp(root);
    // 40,000 commits with fixed dates have fixed hashes, among them several pairs sharing 7 hex digits.
    const stream = Array.from({ length: 40_000 }, (_, i) => {
      const msg = `c${i}\n`;
      return `commit refs/retrace/sessions/s\ncommitter R <r@l> 1700000000 +0000\ndata ${msg.length}\n${msg}${i === 0 ? 'deleteall\n' : ''}`;
    }).join('\n');
    execFileSync('git', [`--git-dir=${repo.gitDir}`, 'fast-import', '--quiet'], { input: stream + '\n' });
    const all = execFileSync('git', [`--git-dir=${repo.gitDir}`, 'rev-list', 'refs/retrace/sessions/s'], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }).split('\n');
    const seen = new Map<string, string>();
    let pair: [string, string] | null = null;
    for (const h of all.filter((l) => l.length === 40)) {
      const other = seen.get(h.slice(0, 7));
      if (other) pair = [other, h];
      seen.set(h.slice(0, 7), h);
    }
    expect(pair).not.toBeNull();
    const err = await repo.resolveCommit(pair![0].slice(0, 7)).catch((e: RetraceError) => e);
    expect((err as RetraceError).code).toBe('E_AMBIGUOUS');
    expect((err as RetraceError).message).toContain(pair![0].slice(0, 12));
    expect((err as RetraceError).message).toContain(pair![1].slice(0, 12));
    expect(await repo.resolveCommit(pair![0])).toBe(pair![0]);
  });

  it('diffs trees: statuses, renames, numstat, binary, non-ASCII names, empty tree', async () => {
    const root = makeWorkspace({
      'keep.txt': 'same\n',
      'mod.txt': 'one\ntwo\n',
      'gone.txt': 'bye\n',
      'old name.txt': 'a fairly long line that makes rename detection sure\nsecond line\nthird line\n',
      'bin.dat': Buffer.from([0, 1, 2, 3]),
      link: { symlink: 'keep.txt' },
    });
    const { repo } = await openTemp(root);
    const t1 = (await repo.snapshotTree()).tree;
    const c1 = await repo.commit(t1, null, 'one');
    writeFileSync(path.join(root, 'mod.txt'), 'one\n2\nthree\n');
    await fs.rm(path.join(root, 'gone.txt'));
    await fs.rename(path.join(root, 'old name.txt'), path.join(root, 'nöü namé.txt'));
    writeFileSync(path.join(root, 'bin.dat'), Buffer.from([0, 9, 9, 9, 9]));
    writeFileSync(path.join(root, 'neu\tfile.txt'), 'x\ny\n');
    await fs.rm(path.join(root, 'link'));
    writeFileSync(path.join(root, 'link'), 'now a file\n');
    const t2 = (await repo.snapshotTree()).tree;
    const files = await repo.diff(c1, t2);
    const by = new Map(files.map((f) => [f.path, f]));
    expect(by.get('mod.txt')).toEqual({
      path: 'mod.txt',
      status: 'modified',
      binary: false,
      insertions: 2,
      deletions: 1,
    });
    expect(by.get('gone.txt')).toMatchObject({ status: 'deleted', deletions: 1, insertions: 0 });
    expect(by.get('nöü namé.txt')).toMatchObject({
      status: 'renamed',
      oldPath: 'old name.txt',
      insertions: 0,
      deletions: 0,
    });
    expect(by.get('bin.dat')).toMatchObject({ status: 'modified', binary: true, insertions: 0, deletions: 0 });
    expect(by.get('neu\tfile.txt')).toMatchObject({ status: 'added', insertions: 2 });
    expect(by.get('link')).toMatchObject({ status: 'type-changed' });
    expect(by.has('keep.txt')).toBe(false);
    const all = await repo.diff(null, c1);
    expect(all.map((f) => f.status)).toEqual(all.map(() => 'added'));
    expect(all).toHaveLength(6);
    const stats = await repo.diffStats(c1, t2);
    expect(stats.changed).toEqual({ added: 1, modified: 4, deleted: 1 });
    expect(stats.stats.files).toBe(6);
    expect(stats.stats.insertions).toBe(files.reduce((n, f) => n + f.insertions, 0));
    expect(await repo.readFile(c1, 'nöü namé.txt')).toBeNull();
    expect((await repo.readFile(t2, 'nöü namé.txt'))!.mode).toBe('100644');
    expect(await codeOf(repo.diff('f'.repeat(40), t2))).toBe('E_UNKNOWN_CHECKPOINT');
  });

  it('keeps checkpoints through gc and reports its size', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const { repo } = await openTemp(root);
    const c = await repo.commit((await repo.snapshotTree()).tree, null, 'x');
    await repo.updateRef('refs/retrace/sessions/s', c);
    execFileSync('git', [`--git-dir=${repo.gitDir}`, 'gc', '--prune=now', '--quiet']);
    await repo.gc('2.weeks.ago');
    expect(await repo.commitExists(c)).toBe(true);
    expect((await repo.readFile(c, 'a.txt'))!.bytes.toString()).toBe('a\n');
    expect(await repo.storageBytes()).toBeGreaterThan(0);
    expect(await repo.repair()).toEqual([]);
    await fs.writeFile(path.join(repo.gitDir, 'index'), 'garbage');
    expect((await repo.repair()).map((r) => r.kind)).toEqual(['repository-repaired']);
    expect((await repo.snapshotTree()).tree).toBe(await repo.treeOf(c));
  });
});

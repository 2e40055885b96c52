import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace } from '../../../../test/helpers';
import { openTemp } from './testSupport';
import { TreeCache } from './treeCache';

afterAll(cleanupTempDirs);

const hex = (n: number): string => n.toString(16).padStart(40, '0');

describe('TreeCache', () => {
  it('keeps full ids only, answers the latest value, and drops the least recently used beyond its bound', () => {
    const c = new TreeCache();
    c.set('abc1234', hex(1)); // a prefix: never cached
    expect(c.get('abc1234')).toBeUndefined();
    c.set(hex(2), hex(3));
    expect(c.get(hex(2))).toBe(hex(3));
    for (let i = 0; i < 10_000; i++) c.set(hex(100 + i), hex(i));
    c.get(hex(100)); // touched: survives the next insert
    c.set(hex(50_000), hex(1));
    expect(c.get(hex(100))).toBe(hex(0));
    expect(c.get(hex(101))).toBeUndefined();
    expect(c.get(hex(2))).toBeUndefined();
  });
});

describe('ShadowRepo.treeOf with the cache', () => {
  it('gives git’s answer for new and existing commits, trees and prefixes', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const { ws, repo } = await openTemp(root);
    const t1 = (await repo.snapshotTree()).tree;
    const c1 = await repo.commit(t1, null, 'one');
    writeFileSync(path.join(root, 'a.txt'), 'b\n');
    const t2 = (await repo.snapshotTree()).tree;
    const c2 = await repo.commit(t2, c1, 'two');
    const git = (spec: string): string =>
      execFileSync('git', [`--git-dir=${repo.gitDir}`, 'rev-parse', `${spec}^{tree}`], {
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
      })
        .toString()
        .trim();
    for (const spec of [c1, c2, t1, t2, c2.slice(0, 12)]) expect(await repo.treeOf(spec)).toBe(git(spec));
    // Trees that snapshots returned resolve to themselves.
    expect(await repo.treeOf((await repo.snapshotTree()).tree)).toBe(t2);
    // A second handle (another process) asks git and gets the same answers.
    const again = await (await import('./ShadowRepo')).ShadowRepo.open(ws);
    expect(await again.treeOf(c2)).toBe(t2);
    await expect(repo.treeOf(hex(7))).rejects.toMatchObject({ code: 'E_UNKNOWN_CHECKPOINT' });
  });
});

/**
 * A restore asks for its plan's diff while its safety snapshot still scans the folder (ShadowRepo.planAhead,
 * issue 15), from the tree the last snapshot named. The plan may take it only when the snapshot names that very
 * tree: a folder that changed meanwhile is planned from the new snapshot, or the change would be left out.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace } from '../../../../test/helpers';
import { openTemp } from './testSupport';

afterAll(cleanupTempDirs);

describe('a restore plan asked for ahead (planAhead)', () => {
  it('is the plan asked afresh when nothing changed, and is left unused when the snapshot finds a change', async () => {
    const root = makeWorkspace({ 'a.txt': 'v1\n', 'b.txt': 'v1\n', 'c.txt': 'same\n' });
    const { repo } = await openTemp(root);
    const target = (await repo.snapshotTree()).tree;
    writeFileSync(path.join(root, 'a.txt'), 'v2\n');
    const last = (await repo.snapshotTree()).tree;

    await repo.planAhead(target);
    const unchanged = await repo.snapshotTree();
    expect(unchanged.tree).toBe(last);
    const ahead = await repo.planRestore(unchanged.tree, target);
    const fresh = await repo.planRestore(unchanged.tree, target);
    expect(ahead).toEqual(fresh);
    expect(ahead.steps.map((s) => s.path)).toEqual(['a.txt']);

    await repo.planAhead(target);
    writeFileSync(path.join(root, 'b.txt'), 'changed after the diff was asked for\n');
    const changed = await repo.snapshotTree();
    expect(changed.tree).not.toBe(last);
    const plan = await repo.planRestore(changed.tree, target);
    expect(plan.steps.map((s) => s.path)).toEqual(['a.txt', 'b.txt']);
    expect(plan.steps.find((s) => s.path === 'b.txt')?.action).toBe('write');
    repo.close();
  });
});

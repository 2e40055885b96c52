/**
 * A restore plans while its safety snapshot still scans the folder (ShadowRepo.planAhead, issue 15), from the tree
 * the last snapshot named. That plan may be taken only when the snapshot names that very tree: a folder that
 * changed meanwhile is planned from the new snapshot, or the change would be left out.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace } from '../../../../test/helpers';
import { openTemp } from './testSupport';

afterAll(cleanupTempDirs);

describe('a restore plan made ahead (planAhead)', () => {
  it('is the plan made from the snapshot when nothing changed, and names another tree when something did', async () => {
    const root = makeWorkspace({ 'a.txt': 'v1\n', 'b.txt': 'v1\n', 'c.txt': 'same\n' });
    const { repo } = await openTemp(root);
    const target = (await repo.snapshotTree()).tree;
    writeFileSync(path.join(root, 'a.txt'), 'v2\n');
    const last = (await repo.snapshotTree()).tree;

    const ahead = await repo.planAhead(target);
    const unchanged = await repo.snapshotTree();
    expect(ahead?.from).toBe(last);
    expect(unchanged.tree).toBe(last);
    expect(ahead?.plan).toEqual(await repo.planRestore(unchanged.tree, target));
    expect(ahead?.plan.steps.map((s) => s.path)).toEqual(['a.txt']);
    // Limited to paths, as the plan from the snapshot is.
    expect((await repo.planAhead(target, ['b.txt']))?.plan.steps).toEqual([]);

    const before = await repo.planAhead(target);
    writeFileSync(path.join(root, 'b.txt'), 'changed after the plan was made\n');
    const changed = await repo.snapshotTree();
    expect(before?.from).toBe(last);
    expect(changed.tree).not.toBe(last);
    const plan = await repo.planRestore(changed.tree, target);
    expect(plan.steps.map((s) => s.path)).toEqual(['a.txt', 'b.txt']);
    repo.close();
  });

  it('is null before the first snapshot: there is no tree to plan from', async () => {
    const { repo } = await openTemp(makeWorkspace({ 'a.txt': 'v1\n' }));
    const empty = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'; // git's empty tree
    expect(await repo.planAhead(empty)).toBeNull();
    await repo.snapshotTree();
    expect(await repo.planAhead(empty)).not.toBeNull();
    repo.close();
  });
});

/**
 * After a gc, the scan state may name a tree gc pruned (no ref, weeks old: an adopted background scan's, a warm
 * snapshot never committed). A warm edit of it would write a tree whose unchanged folders are gone, so the state is
 * forgotten then — and only then: forgetting costs the next snapshot a full scan and sweep.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace } from '../../../../test/helpers';
import { openTemp } from './testSupport';

afterAll(cleanupTempDirs);

/** Every loose object's file made three weeks old (gc prunes unreachable ones older than two). */
function ageLooseObjects(gitDir: string): void {
  const old = new Date(Date.now() - 21 * 86_400_000);
  const objects = path.join(gitDir, 'objects');
  for (const d of readdirSync(objects).filter((n) => /^[0-9a-f]{2}$/.test(n)))
    for (const f of readdirSync(path.join(objects, d))) utimesSync(path.join(objects, d, f), old, old);
}

async function warmTreeOnly(): Promise<{
  repo: Awaited<ReturnType<typeof openTemp>>['repo'];
  state: string;
  tree: string;
}> {
  const root = makeWorkspace({ 'a/x.txt': 'x1\n', 'b/y.txt': 'y1\n' });
  const { repo } = await openTemp(root);
  await repo.snapshotTree();
  writeFileSync(path.join(root, 'a/x.txt'), 'x2\n');
  // Warm: the last tree edited at a/x.txt, a tree (and folder a/) that neither the index nor any ref reaches.
  const { tree } = await repo.snapshotTree({ hintPaths: ['a/x.txt'] });
  return { repo, state: path.join(repo.gitDir, 'retrace-scan.json'), tree };
}

describe('the scan state after a gc', () => {
  it('is forgotten when gc pruned a tree it names', async () => {
    const { repo, state, tree } = await warmTreeOnly();
    ageLooseObjects(repo.gitDir);
    await repo.gc('2.weeks.ago');
    expect(() =>
      execFileSync('git', [`--git-dir=${repo.gitDir}`, 'cat-file', '-e', tree], { stdio: 'ignore' }),
    ).toThrow();
    expect(existsSync(state)).toBe(false);
  });

  it('is kept when every tree it names is still there', async () => {
    const { repo, state, tree } = await warmTreeOnly();
    const commit = await repo.commit(tree, null, 'kept');
    await repo.updateRef('refs/retrace/sessions/kept', commit);
    ageLooseObjects(repo.gitDir);
    await repo.gc('2.weeks.ago');
    expect(existsSync(state)).toBe(true);
  });
});

/** I5: every checkpoint stays reachable from a ref, so `git gc --prune=now` never loses one. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, fsck, gitAt, makeWorkspace, shadowDir, tempHome } from '../helpers';

afterAll(cleanupTempDirs);

describe('I5: gc loses no checkpoint', () => {
  it('all checkpoints (hidden ones, other sessions, safety checkpoints) survive gc --prune=now', async () => {
    const root = makeWorkspace({ 'a.txt': '0\n' });
    const home = tempHome();
    const o = { home, cwd: root };
    const hashes: string[] = [];
    for (let i = 1; i <= 4; i++) {
      writeFileSync(join(root, 'a.txt'), `${i}\n`);
      hashes.push((await cliJson(['checkpoint', '--session', 'main'], o)).hash as string);
    }
    writeFileSync(join(root, 'b.txt'), 'other\n');
    hashes.push((await cliJson(['checkpoint', '--session', 'other'], o)).hash as string);
    // Hide the later checkpoints of 'main' and make a safety checkpoint.
    const r = await cliJson<{ safety: string }>(['restore', hashes[0]!, '--both'], o);
    hashes.push(r.safety);
    writeFileSync(join(root, 'a.txt'), 'after rewind\n');
    hashes.push((await cliJson(['checkpoint', '--session', 'main'], o)).hash as string);

    const git = shadowDir(home, root);
    gitAt(git, ['reflog', 'expire', '--expire=now', '--all']);
    gitAt(git, ['gc', '--prune=now', '--quiet']);
    expect(fsck(git).ok).toBe(true);
    for (const h of hashes) expect(gitAt(git, ['cat-file', '-t', h]).trim(), h).toBe('commit');
    // And every one can still be restored, its files intact.
    await cliJson(['restore', hashes[2]!, '--code'], o);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('3\n');
  });
});

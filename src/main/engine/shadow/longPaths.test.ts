/**
 * A path longer than the system allows (PATH_MAX, 4096 bytes on Linux) cannot be read by us or by git. Such a
 * path is reported as not captured ('name-too-long') and the checkpoint goes on, on the full and the hinted
 * path, whether git could still list it (the folder's own path makes it too long for us) or not (the path
 * inside the folder is too long for git as well).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { openTemp, treeListing } from './testSupport';

const deepRoots: string[] = [];
afterAll(() => {
  // Node's recursive rm fails on paths past PATH_MAX; GNU rm walks with openat.
  for (const d of deepRoots) spawnSync('rm', ['-rf', d]);
  cleanupTempDirs();
});

const SEG = 'd'.repeat(220);

/** `levels` nested folders of SEG under `root` holding `deep.txt`, made in relative steps (chdir, mkdir). */
function deepFile(root: string, levels: number): string {
  const script = `process.chdir(process.argv[1]); for (let i = 0; i < ${levels}; i++) { fs.mkdirSync('${SEG}'); process.chdir('${SEG}'); } fs.writeFileSync('deep.txt', 'deep\\n');`;
  const r = spawnSync(process.execPath, ['-e', script, root]);
  expect(r.status, r.stderr.toString()).toBe(0);
  return `${Array(levels).fill(SEG).join('/')}/deep.txt`;
}

/** A folder whose own path is ~700 bytes long. */
function longRoot(): string {
  const top = tempDir('retrace-long-');
  deepRoots.push(top);
  const root = path.join(top, 'r'.repeat(200), 's'.repeat(200), 't'.repeat(200));
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, 'a.txt'), 'a\n');
  return root;
}

describe('paths longer than PATH_MAX', () => {
  it('short enough for git inside the folder, too long with the folder: not captured, the checkpoint succeeds', async () => {
    const root = longRoot();
    const rel = deepFile(root, 16); // ~3.5 KB inside a ~0.7 KB folder path
    expect(Buffer.byteLength(rel)).toBeLessThan(4096);
    expect(Buffer.byteLength(path.join(root, rel))).toBeGreaterThan(4096);
    const { repo } = await openTemp(root);
    for (let i = 0; i < 2; i++) {
      writeFileSync(path.join(root, 'a.txt'), `a${i}\n`);
      const snap = await repo.snapshotTree();
      expect(snap.notCaptured).toEqual([{ path: rel, reason: 'name-too-long' }]);
      expect([...(await treeListing(repo, snap.tree)).keys()]).toEqual(['a.txt']);
    }
    const hinted = await repo.snapshotTree({ hintPaths: [rel, 'a.txt'] });
    expect(hinted.notCaptured).toEqual([{ path: rel, reason: 'name-too-long' }]);
    expect([...(await treeListing(repo, hinted.tree)).keys()]).toEqual(['a.txt']);
  });

  it('too long for git as well: the folder git could not open is reported, the rest captured', async () => {
    const root = tempDir('retrace-ws-');
    deepRoots.push(root);
    writeFileSync(path.join(root, 'a.txt'), 'a\n');
    const rel = deepFile(root, 20); // ~4.4 KB inside the folder
    expect(Buffer.byteLength(rel)).toBeGreaterThan(4096);
    const { repo } = await openTemp(root);
    // Every checkpoint says so, not only the first (git's untracked cache must not hide it later).
    for (let i = 0; i < 3; i++) {
      if (i === 2) writeFileSync(path.join(root, 'a.txt'), 'changed\n');
      const snap = await repo.snapshotTree();
      expect([...(await treeListing(repo, snap.tree)).keys()]).toEqual(['a.txt']);
      expect(snap.notCaptured).toHaveLength(1);
      expect(snap.notCaptured[0]!.reason).toBe('name-too-long');
      expect(rel.startsWith(snap.notCaptured[0]!.path + '/')).toBe(true);
    }
  });
});

/** The helpers must be able to fail: every kind of change they claim to detect is detected here. */
import { chmodSync, existsSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  digest,
  eventually,
  gitChecksum,
  maintenanceRunning,
  maintenanceSettled,
  makeWorkspace,
  prng,
  runCli,
  spawnCli,
  tempHome,
  treeChecksum,
  treeManifest,
} from './index';

afterAll(cleanupTempDirs);

describe('test helpers', () => {
  it('treeChecksum sees content, exec bit, symlink target, names as bytes, and mtime when asked', () => {
    const ws = makeWorkspace();
    const base = treeChecksum(ws);
    const baseM = treeChecksum(ws, { mtimes: true });
    expect(treeChecksum(ws)).toBe(base);

    writeFileSync(join(ws, 'README.md'), '# demo!\n');
    expect(treeChecksum(ws)).not.toBe(base);
    writeFileSync(join(ws, 'README.md'), '# demo\n');
    expect(treeChecksum(ws)).toBe(base);
    expect(treeChecksum(ws, { mtimes: true })).not.toBe(baseM);

    chmodSync(join(ws, 'src/index.ts'), 0o755);
    expect(treeChecksum(ws)).not.toBe(base);
    chmodSync(join(ws, 'src/index.ts'), 0o644);

    rmSync(join(ws, 'link-to-readme'));
    symlinkSync('src/index.ts', join(ws, 'link-to-readme'));
    expect(treeChecksum(ws)).not.toBe(base);
    rmSync(join(ws, 'link-to-readme'));
    symlinkSync('README.md', join(ws, 'link-to-readme'));
    expect(treeChecksum(ws)).toBe(base);

    writeFileSync(join(ws, 'plain-name'), 'x');
    const withValid = treeManifest(ws);
    const raw = Buffer.concat([Buffer.from(ws + '/bad-'), Buffer.from([0xff]), Buffer.from('-name')]);
    writeFileSync(raw, 'y');
    const withInvalid = treeManifest(ws);
    expect(withInvalid.size).toBe(withValid.size + 1);
    expect([...withInvalid.keys()].some((k) => k.startsWith('<hex:'))).toBe(true);
    expect(digest(withInvalid)).not.toBe(digest(withValid));
  });

  it('treeChecksum leaves out .git but gitChecksum sees every byte and mtime under it', () => {
    const ws = makeWorkspace(undefined, { userGit: true });
    const tree = treeChecksum(ws);
    const g = gitChecksum(ws);
    writeFileSync(join(ws, '.git/index.lock'), '');
    expect(treeChecksum(ws)).toBe(tree);
    expect(gitChecksum(ws)).not.toBe(g);
    rmSync(join(ws, '.git/index.lock'));
    // Even a lock taken and released shows: the folder's mtime moved (I1 forbids locking the user's git).
    expect(gitChecksum(ws)).not.toBe(g);
    const g2 = gitChecksum(ws);
    expect(gitChecksum(ws)).toBe(g2);
    const later = new Date(Date.now() + 5000);
    utimesSync(join(ws, '.git/HEAD'), later, later);
    expect(gitChecksum(ws)).not.toBe(g2);
  });

  it('prng is reproducible', () => {
    const a = prng(7);
    const b = prng(7);
    const xs = Array.from({ length: 5 }, () => a.int(0, 1000));
    expect(Array.from({ length: 5 }, () => b.int(0, 1000))).toEqual(xs);
  });

  it('maintenanceSettled waits for a running `retrace maintenance` of that data folder, and only that one', async () => {
    const ws = makeWorkspace();
    const home = tempHome();
    expect((await runCli(['checkpoint'], { home, cwd: ws })).code).toBe(0);
    const other = tempHome();
    const run = spawnCli(['maintenance'], { home, cwd: ws });
    await eventually('the maintenance process', () => maintenanceRunning(home));
    expect(maintenanceRunning(other)).toBe(false);
    await expect(maintenanceSettled(home, 0)).rejects.toThrow(/still runs/);
    await maintenanceSettled(home);
    const cmdline = `/proc/${run.child.pid}/cmdline`;
    expect(existsSync(cmdline) ? readFileSync(cmdline, 'utf8') : '').toBe(''); // exited (at most a zombie)
    expect((await run.done).code).toBe(0);
  });
});

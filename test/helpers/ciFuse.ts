/**
 * A real case-insensitive, case-preserving folder for tests (PRODUCT.md I13): ciFuse.py mounted over a temp
 * folder with FUSE. `fuseUnavailable()` says why it cannot be mounted here (tests skip with that reason);
 * `mountCaseInsensitive()` mounts one; `unmountAll()` (afterAll) unmounts every mount made, also after a failure.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tempDir } from './tmp';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./ciFuse.py', import.meta.url));

export interface CaseInsensitiveMount {
  /** The case-insensitive view. */
  mnt: string;
  /** The folder underneath (case-sensitive: shows the names exactly as stored). */
  src: string;
}

const mounted: { mnt: string; child: ChildProcess }[] = [];

function unmountCommand(): string | null {
  for (const cmd of ['fusermount3', 'fusermount']) {
    if (spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0) return cmd;
  }
  return null;
}

/** Why a FUSE mount cannot be made on this machine, or null when it can. */
export function fuseUnavailable(): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (!existsSync('/dev/fuse')) return '/dev/fuse is missing';
  if (!unmountCommand()) return 'fusermount3 is missing (apt-get install fuse3)';
  const py = spawnSync(PYTHON, ['-c', 'import fusepy'], { encoding: 'utf8' });
  if (py.status !== 0) return `${PYTHON} cannot import fusepy (apt-get install python3-fusepy)`;
  return null;
}

function isMountPoint(dir: string): boolean {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1] === dir);
}

/** Mount a fresh case-insensitive folder; rejects (after cleaning up) when the mount does not appear in 10 s. */
export async function mountCaseInsensitive(): Promise<CaseInsensitiveMount> {
  const src = tempDir('retrace-ci-src-');
  const mnt = tempDir('retrace-ci-mnt-');
  const child = spawn(PYTHON, [SCRIPT, src, mnt], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  mounted.push({ mnt, child });
  const deadline = Date.now() + 10_000;
  while (!isMountPoint(mnt)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      unmount(mnt);
      throw new Error(`ciFuse.py did not mount ${mnt}: ${stderr.trim() || `exit ${child.exitCode}`}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  if (statSync(mnt).dev === statSync(src).dev) throw new Error(`${mnt} is not a separate mount`);
  return { mnt, src };
}

function unmount(mnt: string): void {
  const i = mounted.findIndex((m) => m.mnt === mnt);
  if (i < 0) return;
  const [{ child }] = mounted.splice(i, 1) as [{ mnt: string; child: ChildProcess }];
  const cmd = unmountCommand();
  if (cmd && isMountPoint(mnt)) {
    // A busy mount (a git child still in it) unmounts lazily, so the temp folders can still be removed.
    if (spawnSync(cmd, ['-u', mnt]).status !== 0) spawnSync(cmd, ['-u', '-z', mnt]);
  }
  if (child.exitCode === null) child.kill('SIGTERM'); // our own child, by its handle
}

/** Unmount every folder mounted here (call in afterAll, before cleanupTempDirs). */
export function unmountAll(): void {
  for (const { mnt } of [...mounted]) unmount(mnt);
}

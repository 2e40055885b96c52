/**
 * A real full disk for tests: a small tmpfs mounted over a temp folder (mounting needs root: `whyNoTmpfs` says
 * why not, and the test skips with that reason), filled to its last byte by `fillUp`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';

/** Why a tmpfs cannot be mounted here, or null when it can. */
export function whyNoTmpfs(): string | null {
  return process.getuid?.() === 0 ? null : 'mounting a small tmpfs needs root';
}

export function mountTmpfs(dir: string, size = '4m'): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
}

/** Unmounted once nothing holds it any more (a process just stopped may take a moment); false if still busy after 5 s. */
export async function unmountTmpfs(dir: string): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if (spawnSync('umount', [dir], { stdio: 'pipe' }).status === 0) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** Fill the file system of `file` to the last block: big writes, then ever smaller ones until even a byte fails. */
export function fillUp(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 'f');
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch {
          break; // ENOSPC: on to smaller pieces
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

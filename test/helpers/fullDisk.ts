/**
 * A real full disk for tests: a small tmpfs mounted over a temp folder (mounting needs root: `mountTmpfs` says
 * why it could not, and the test skips with that reason), filled to its last byte by `fillUp`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';

/** Mount a tmpfs of `size` over `dir`; null when mounted, else why it cannot be here (the test skips with that). */
export function mountTmpfs(dir: string, size = '4m'): string | null {
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs needs root';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (e) {
    return `mount is not permitted here (${(e as Error).message.split('\n')[0]})`;
  }
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

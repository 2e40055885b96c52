/**
 * Item 8 of issue 10: a restore checks, before it changes anything, that the disk holds what it is about to
 * write. Each file is written beside its target before the old one goes, so the new contents need room in full.
 */
import { promises as fs } from 'node:fs';
import { RetraceError } from '../../../shared/errors';

const MiB = 1024 * 1024;
const show = (n: number): string => (n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`);

/** `sizes`: the byte size of each file the restore writes. */
export async function assertFreeSpace(root: string, sizes: readonly number[]): Promise<void> {
  if (sizes.length === 0) return;
  let st;
  try {
    st = await fs.statfs(root);
  } catch {
    return; // a file system that cannot tell: the writes themselves still fail cleanly (E_NO_SPACE, rolled back)
  }
  const block = Number(st.bsize) || 4096;
  // Whole blocks per file, plus one for its folder entry and one for the side file's.
  const needed = sizes.reduce((sum, n) => sum + Math.ceil(n / block) * block + 2 * block, 0);
  const available = Number(st.bavail) * block;
  if (needed > available)
    throw new RetraceError(
      'E_NO_SPACE',
      `not enough disk space to restore: ${show(needed)} needed, ${show(available)} available on the folder's disk; nothing was changed`,
    );
}

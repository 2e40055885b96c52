import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';

/** Disk checks shared by the full snapshot (snapshot.ts) and the warm one (treeEdit.ts). */

export async function lstatOrNull(root: string, rel: string): Promise<Stats | null> {
  try {
    return await fs.lstat(path.join(root, rel));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new RetraceError('E_UNREADABLE', `cannot read ${rel}: ${code ?? (e as Error).message}`);
  }
}

/**
 * A path whose parent is a symlink (or no longer a directory) is not part of the folder: following it would
 * capture files from elsewhere. Directory answers are cached for the run.
 */
export function parentChecker(root: string): (rel: string) => Promise<boolean> {
  const cache = new Map<string, Promise<boolean>>();
  const dirOk = (dir: string): Promise<boolean> => {
    if (dir === '') return Promise.resolve(true);
    let p = cache.get(dir);
    if (!p) {
      const parent = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
      p = dirOk(parent).then(async (ok) => {
        if (!ok) return false;
        const st = await fs.lstat(path.join(root, dir)).catch(() => null);
        return !!st && st.isDirectory();
      });
      cache.set(dir, p);
    }
    return p;
  };
  return (rel) => dirOk(rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
}

export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

import { lstatSync, type Stats } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';

/**
 * Disk checks shared by the full snapshot (snapshot.ts, fastFirstSnapshot.ts) and the warm one (treeEdit.ts).
 *
 * Synchronous on purpose: a first snapshot makes several calls per file for 100k files, and each promise-based
 * call costs a thread-pool round trip and a promise — measured at ~60% of Node's CPU in a first checkpoint,
 * on a machine whose two cores the git processes need. timeSliced keeps the event loop answering meanwhile.
 */

/**
 * A path longer than the system allows (PATH_MAX: 4096 bytes on Linux, 1024 on macOS), with the folder's own
 * path in front. Neither we nor git can read it: the snapshot reports it as not captured and goes on.
 */
export class NameTooLong extends Error {
  constructor(readonly rel: string) {
    super(`path too long: ${rel}`);
    this.name = 'NameTooLong';
  }
}

export function lstatOrNull(root: string, rel: string): Stats | null {
  try {
    return lstatSync(path.join(root, rel));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ENAMETOOLONG') throw new NameTooLong(rel);
    throw new RetraceError('E_UNREADABLE', `cannot read ${rel}: ${code ?? (e as Error).message}`);
  }
}

/**
 * A path whose parent is a symlink (or no longer a directory) is not part of the folder: following it would
 * capture files from elsewhere. Directory answers are cached for the run.
 */
export function parentChecker(root: string): (rel: string) => boolean {
  const cache = new Map<string, boolean>();
  const dirOk = (dir: string): boolean => {
    if (dir === '') return true;
    let ok = cache.get(dir);
    if (ok === undefined) {
      const parent = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
      ok = dirOk(parent) && (lstatDirOrNull(root, dir)?.isDirectory() ?? false);
      cache.set(dir, ok);
    }
    return ok;
  };
  // A folder too long to stat: the path under it is what is too long.
  return (rel) => {
    try {
      return dirOk(rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
    } catch (e) {
      if (e instanceof NameTooLong) throw new NameTooLong(rel);
      throw e;
    }
  };
}

function lstatDirOrNull(root: string, dir: string): Stats | undefined {
  try {
    return lstatSync(path.join(root, dir), { throwIfNoEntry: false });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENAMETOOLONG') throw new NameTooLong(dir);
    throw e;
  }
}

/** Longest stretch of synchronous work before the event loop gets a turn (UI requests, heartbeats). */
const SLICE_MS = 8;

/** Run `fn` over the items, yielding to the event loop every few milliseconds. */
export async function timeSliced<T>(items: readonly T[], fn: (item: T) => void): Promise<void> {
  let sliceStart = performance.now();
  for (const item of items) {
    fn(item);
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

/**
 * Entries of a small shadow index replaced or removed in this process, the index written again whole (not split):
 * what `update-index` does for files whose blob ids are known already, without reading and hashing them again
 * (stageRestored.ts: a restore's files; at 1,000 files ~3 ms here against ~15 ms of `update-index` and
 * `write-tree`, measured with bench/restoreProfile.ts).
 *
 * Kept as git keeps it (read-cache.c): entries another program may have changed in the same instant the old index
 * was written ("racily clean": their mtime is not older than the index file's) are smudged — their size set to 0 —
 * before the file gets a newer timestamp, so git compares their content next time instead of trusting their stat
 * data. The cache-tree is dropped (git builds it again the next time it writes a tree); the untracked cache is kept
 * (git checks each folder's stat data before it trusts that folder's part). Larger indexes are left to git, whose
 * split index rewrites only what changed.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { GitRunner } from '../git/runner';
import { encodeIndex, replaceIndexFile, type IndexEntry } from './indexFile';
import { readIndex } from './indexRead';

/**
 * Bytes of index (shared part included) up to which it is rewritten here: a folder of about 3,000 files. Reading
 * and writing a whole index here costs ~2 ms at 1,000 files but ~30 ms at 10,000, where git's split index rewrites
 * only what changed and its staging hides behind the restore's last sync.
 */
export const MAX_INDEX_BYTES = 256 * 1024;

/**
 * Give each path in `edits` its new entry (null: remove it). Every path must have an entry already; false (the index
 * untouched) when one has none, or the index is large or one indexRead.ts does not read. The new index is not yet
 * synced (indexFile.ts replaceIndexFile): the caller syncs it with syncIndexFile.
 */
export function editIndex(git: GitRunner, edits: ReadonlyMap<string, IndexEntry | null>): boolean {
  // Windows: git keeps its own stat data there (no inode, ctime the creation time), which Node's would not match.
  if (process.platform === 'win32' || git.indexBytes() > MAX_INDEX_BYTES) return false;
  const indexPath = path.join(git.gitDir, 'index');
  return replaceIndexFile(indexPath, () => {
    const old = mtimeSeconds(indexPath);
    if (old === null) return null;
    const parsed = readIndex(indexPath);
    if (!parsed) return null;
    const next: (IndexEntry | null)[] = parsed.entries.map((e) => smudgedIfRacy(e, old));
    for (const [rel, entry] of edits) {
      const i = positionOf(parsed.entries, Buffer.from(rel, 'utf8'));
      if (i < 0) return null;
      next[i] = entry && { ...entry, path: parsed.entries[i]!.path };
    }
    const entries = next.filter((e): e is IndexEntry => e !== null);
    return encodeIndex(entries, { extensions: parsed.kept });
  });
}

/** Where `name` is among entries sorted by name bytes; -1 when it is not. */
function positionOf(entries: readonly { path: Buffer }[], name: Buffer): number {
  let lo = 0;
  let hi = entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = Buffer.compare(entries[mid]!.path, name);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Git takes an entry whose mtime is not older than the index file's as possibly changed unseen; the new file is
 * newer, so such an entry gets a size that matches no file of content (git's own smudge), whole seconds compared:
 * the coarser rule covers a git built with or without nanosecond timestamps.
 */
function smudgedIfRacy(e: IndexEntry, indexMtimeS: number): IndexEntry {
  return e.stat.mtimeS >= indexMtimeS ? { ...e, stat: { ...e.stat, size: 0 } } : e;
}

function mtimeSeconds(file: string): number | null {
  try {
    return Math.floor(statSync(file).mtimeMs / 1000);
  } catch {
    return null;
  }
}

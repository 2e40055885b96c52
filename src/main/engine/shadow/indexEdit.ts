/**
 * Entries of the shadow index replaced or removed in this process: what `update-index` does for files whose blob ids
 * are known already, without reading and hashing them again (stageRestored.ts: a restore's files).
 *
 * A split index (the shadow's, core.splitIndex) has only its main file written again (splitIndexEdit.ts). An index
 * that is not split (the fast first snapshot writes one) is written again whole, up to MAX_INDEX_BYTES: decoded into
 * entries, ~2 ms at 1,000 files but ~16 ms at 10,000.
 *
 * Kept as git keeps it (read-cache.c): entries another program may have changed in the same instant the old index
 * was written ("racily clean": their mtime is not older than the index file's) are smudged — their size set to 0 —
 * before the file gets a newer timestamp, so git compares their content next time instead of trusting their stat
 * data. The cache-tree is kept with the trees an edit touches marked invalid, as git's own staging keeps it
 * (cacheTree.ts); the untracked cache is kept as it is (git checks each folder's stat data before it trusts that
 * folder's part).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { GitRunner } from '../git/runner';
import { encodeIndex, replaceIndexFile, smudgedIfRacy, type IndexEntry } from './indexFile';
import { parseFile, positionOf, Unexpected, type ParsedFile } from './indexRead';
import { editSplitIndex } from './splitIndexEdit';
import { carriedOver } from './cacheTree';

/** Bytes of an index that is not split up to which it is rewritten here whole: a folder of about 3,000 files. */
export const MAX_INDEX_BYTES = 256 * 1024;

/**
 * Bytes of a split index's shared part up to which its main file is written here (a folder of about 27,000 files):
 * the shared part is read, checksummed and walked whole — at 10,000 files ~4 ms once the JIT has optimized the walk,
 * ~15 ms before — where git's `update-index` and `write-tree` take ~20 ms. Larger ones are left to git.
 */
export const MAX_SHARED_BYTES = 2 * 1024 * 1024;

/**
 * Give each path in `edits` its new entry (null: remove it). Every path must have an entry already; false (the index
 * untouched) when one has none, or the index is too large or one this module does not read. The new index is not yet
 * synced (indexFile.ts replaceIndexFile): the caller syncs it with syncIndexFile.
 */
export function editIndex(git: GitRunner, edits: ReadonlyMap<string, IndexEntry | null>): boolean {
  // Windows: git keeps its own stat data there (no inode, ctime the creation time), which Node's would not match.
  if (process.platform === 'win32') return false;
  const indexPath = path.join(git.gitDir, 'index');
  return replaceIndexFile(indexPath, () => {
    const old = mtimeSeconds(indexPath);
    const main = old === null ? null : mainFile(indexPath);
    if (old === null || main === null) return null;
    if (main.file.extensions.some((x) => x.signature === 'link'))
      return editSplitIndex(git.gitDir, main.file, edits, old, MAX_SHARED_BYTES);
    return main.bytes.length > MAX_INDEX_BYTES ? null : editWhole(main.file, edits, old);
  });
}

/** The index file, read and parsed once; null when absent or not one indexRead.ts reads. */
function mainFile(indexPath: string): { bytes: Buffer; file: ParsedFile } | null {
  try {
    const bytes = readFileSync(indexPath);
    return { bytes, file: parseFile(bytes) };
  } catch (e) {
    if (e instanceof Unexpected || e instanceof RangeError || (e as NodeJS.ErrnoException).code === 'ENOENT')
      return null;
    throw e;
  }
}

/** An index that is not split, written again whole with the edits; null when one has no entry. */
function editWhole(file: ParsedFile, edits: ReadonlyMap<string, IndexEntry | null>, old: number): Buffer | null {
  if (file.entries.some((e) => e.path.length === 0)) return null; // a replacement with no split index around it
  const next: (IndexEntry | null)[] = file.entries.map((e) => smudgedIfRacy(e, old));
  const names = [...edits.keys()].map((rel) => Buffer.from(rel, 'utf8'));
  for (const [k, entry] of [...edits.values()].entries()) {
    const i = positionOf(file.entries, names[k]!);
    if (i < 0) return null;
    next[i] = entry && { ...entry, path: file.entries[i]!.path };
  }
  const entries = next.filter((e): e is IndexEntry => e !== null);
  try {
    return encodeIndex(entries, { extensions: carriedOver(file.extensions, names) });
  } catch (e) {
    if (e instanceof Unexpected) return null; // a cache-tree it does not read: left to git
    throw e;
  }
}

function mtimeSeconds(file: string): number | null {
  try {
    return Math.floor(statSync(file).mtimeMs / 1000);
  } catch {
    return null;
  }
}

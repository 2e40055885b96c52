/**
 * Line counts of the blobs a fast first snapshot just stored (engineer E, perf; fastFirstSnapshot.ts fills it).
 *
 * A checkpoint's stats come from `diff-tree --numstat` against its parent; for a workspace's first checkpoint
 * the parent is the empty tree, so git would inflate and count every blob it just wrote — ~10 s of CPU at
 * 100k files / 500 MB. The fast path has every blob's bytes in hand anyway, so it counts them the way git's
 * numstat does for an added file, and the first checkpoint's stats are read from here plus one `ls-tree -r`.
 * Any blob not counted here (a different snapshot, another process) sends the caller back to git.
 *
 * git's rules (diff.c, xdiff): a blob with a NUL in its first 8000 bytes is binary ("-\t-"); otherwise its
 * line count is the number of '\n' plus one for a last line without one. A symlink's blob is its target text.
 */
import type { FileChange } from '../../../shared/model';

const FIRST_FEW_BYTES = 8000;

export interface LineCount {
  binary: boolean;
  lines: number;
}

export function countLines(bytes: Buffer): LineCount {
  if (bytes.subarray(0, FIRST_FEW_BYTES).includes(0)) return { binary: true, lines: 0 };
  let lines = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
  if (bytes.length > 0 && bytes[bytes.length - 1] !== 10) lines++;
  return { binary: false, lines };
}

export class LineCounts {
  private readonly counts = new Map<string, LineCount>();

  set(oid: string, count: LineCount): void {
    this.counts.set(oid, count);
  }

  /**
   * The file list of "empty tree → this tree" (all added), from ls-tree entries, or null when a blob was not
   * counted here.
   */
  addedFiles(entries: readonly { path: string; id: string; type: string }[]): FileChange[] | null {
    const files: FileChange[] = [];
    for (const e of entries) {
      if (e.type !== 'blob') return null; // a gitlink or anything unexpected: let git answer
      const c = this.counts.get(e.id);
      if (!c) return null;
      files.push({ path: e.path, status: 'added', binary: c.binary, insertions: c.lines, deletions: 0 });
    }
    return files;
  }

  /** Counts are only needed for the first checkpoint: drop them once it has its stats. */
  clear(): void {
    this.counts.clear();
  }

  get size(): number {
    return this.counts.size;
  }
}

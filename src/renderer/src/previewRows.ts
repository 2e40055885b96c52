/**
 * What "Restore code" would do to each file, for the restore preview. The dry run names the paths; the
 * checkpoint → files-now comparison says how each differs, and a restore goes the other way: a file added since
 * the checkpoint is deleted, a deleted one comes back, lines added since are removed.
 */
import type { FileChange, FileStatus } from '../../shared/model';
import { naturalCompare } from './fileTree';

export interface PreviewRow {
  /** The path as it will be after the restore (a rename shows where it goes back to). */
  path: string;
  /** Renames: where the file is now. */
  from?: string;
  status: FileStatus;
  /** Lines the restore adds and removes; null when not known (binary, not captured, not in the comparison). */
  insertions: number | null;
  deletions: number | null;
}

const REVERSED: Record<FileStatus, FileStatus> = {
  added: 'deleted',
  deleted: 'added',
  modified: 'modified',
  renamed: 'renamed',
  'type-changed': 'type-changed',
};

/** `changed`: the dry run's paths; `sinceCheckpoint`: checkpoint → files now (null while it loads). */
export function previewRows(changed: readonly string[], sinceCheckpoint: readonly FileChange[] | null): PreviewRow[] {
  const byPath = new Map<string, FileChange>();
  for (const f of sinceCheckpoint ?? []) {
    byPath.set(f.path, f);
    if (f.oldPath) byPath.set(f.oldPath, f);
  }
  const rows: PreviewRow[] = [];
  const seen = new Set<FileChange>();
  for (const p of changed) {
    const f = byPath.get(p);
    if (!f) {
      rows.push({ path: p, status: 'modified', insertions: null, deletions: null });
      continue;
    }
    if (seen.has(f)) continue; // a rename's two paths are one row
    seen.add(f);
    const counted = !f.binary && !f.notCaptured;
    rows.push({
      path: f.oldPath ?? f.path,
      ...(f.oldPath ? { from: f.path } : {}),
      status: REVERSED[f.status],
      insertions: counted ? f.deletions : null,
      deletions: counted ? f.insertions : null,
    });
  }
  return rows.sort((a, b) => naturalCompare(a.path, b.path));
}

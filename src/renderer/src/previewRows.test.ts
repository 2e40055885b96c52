import { describe, expect, it } from 'vitest';
import type { FileChange } from '../../shared/model';
import { previewRows } from './previewRows';

const change = (
  path: string,
  status: FileChange['status'],
  ins: number,
  del: number,
  extra: Partial<FileChange> = {},
) => ({ path, status, binary: false, insertions: ins, deletions: del, ...extra }) as FileChange;

describe('previewRows', () => {
  it('turns "since the checkpoint" around: what a restore adds, deletes and changes, with its line counts', () => {
    const since = [
      change('new.ts', 'added', 5, 0),
      change('gone.ts', 'deleted', 0, 3),
      change('edit.ts', 'modified', 2, 7),
      change('moved/b.ts', 'renamed', 1, 1, { oldPath: 'a.ts' }),
      change('logo.png', 'modified', 0, 0, { binary: true }),
    ];
    const rows = previewRows(['a.ts', 'edit.ts', 'gone.ts', 'logo.png', 'moved/b.ts', 'new.ts', 'other.txt'], since);
    expect(rows).toEqual([
      { path: 'a.ts', from: 'moved/b.ts', status: 'renamed', insertions: 1, deletions: 1 },
      { path: 'edit.ts', status: 'modified', insertions: 7, deletions: 2 },
      { path: 'gone.ts', status: 'added', insertions: 3, deletions: 0 },
      { path: 'logo.png', status: 'modified', insertions: null, deletions: null },
      { path: 'new.ts', status: 'deleted', insertions: 0, deletions: 5 },
      // Not in the comparison (e.g. it changed after): listed, counts unknown.
      { path: 'other.txt', status: 'modified', insertions: null, deletions: null },
    ]);
  });

  it("lists the dry run's paths alone while the comparison loads", () => {
    expect(previewRows(['b10', 'b9'], null).map((r) => r.path)).toEqual(['b9', 'b10']);
  });
});

/**
 * "Revert this step" and the per-hunk actions (issue 14 items 1–2): their own small store beside the main one.
 * A revert is previewed first (a dry run: the files it would change, each file's merged result as a diff, the
 * conflicts), then run; both it and a hunk action are ledger entries, so the banner and the Restores panel of
 * the main store show them with Undo like any restore.
 */
import { create } from 'zustand';
import type { ErrorInfo } from '../../../shared/errors';
import type { FileContents, RevertResult } from '../../../shared/model';
import { api } from '../bridge';
import { diffSides, loadRestores, refreshWorking, useStore } from './index';
import { plural, shortHash } from './describe';

/** One changed region of the diff shown, as Monaco computed it (1-based; an end of 0 = no lines on that side). */
export interface LineChange {
  originalStartLineNumber: number;
  originalEndLineNumber: number;
  modifiedStartLineNumber: number;
  modifiedEndLineNumber: number;
}

interface RevertState {
  /** The dry run being previewed, with its merged result; null when no preview is open. */
  preview: RevertResult | null;
  /** The preview's file whose merged result shows, and its two sides. */
  previewPath: string | null;
  previewFile: FileContents | null;
  /** The hunks of the diff the main view shows now, and which file/sides they belong to. */
  lineChanges: LineChange[];
  hunksKey: string | null;
  busy: boolean;
}

export const useRevert = create<RevertState>(() => ({
  preview: null,
  previewPath: null,
  previewFile: null,
  lineChanges: [],
  hunksKey: null,
  busy: false,
}));

const set = useRevert.setState;
const get = useRevert.getState;

function fail(error: ErrorInfo): void {
  useStore.setState({ error });
}

/** The preview of "Revert this step" for the selected checkpoint: nothing changes yet. */
export async function openRevertPreview(): Promise<void> {
  const s = useStore.getState();
  const cp = s.checkpoints[s.selected];
  if (!s.workspace || !cp || s.busy || get().busy) return;
  set({ busy: true });
  try {
    const r = await api.revert({ workspace: s.workspace.id, target: cp.hash, dryRun: true });
    if (!r.ok) return fail(r.error);
    set({ preview: r.value, previewPath: null, previewFile: null });
    const first = r.value.preview?.files[0];
    if (first) await showPreviewFile(first.path);
  } finally {
    set({ busy: false });
  }
}

/** One file of the preview: the files now → the merged result, through the ordinary contents call. */
export async function showPreviewFile(path: string): Promise<void> {
  const ws = useStore.getState().workspace;
  const p = get().preview?.preview;
  if (!ws || !p) return;
  set({ previewPath: path });
  const change = p.files.find((f) => f.path === path);
  const r = await api.fileContents({
    workspace: ws.id,
    from: p.from,
    to: p.to,
    path,
    ...(change?.oldPath ? { oldPath: change.oldPath } : {}),
  });
  if (!r.ok) return fail(r.error);
  if (get().previewPath === path) set({ previewFile: r.value });
}

export const closeRevertPreview = () => set({ preview: null, previewPath: null, previewFile: null });

// A preview is of one checkpoint's step: another checkpoint, session or folder closes it.
useStore.subscribe((now, before) => {
  if (
    get().preview &&
    (now.selected !== before.selected || now.sessionId !== before.sessionId || now.workspace !== before.workspace)
  )
    closeRevertPreview();
});

/** Run the previewed revert; with conflicts, only as asked: git's conflict markers written (`merge`). */
export async function confirmRevert(): Promise<void> {
  const s = useStore.getState();
  const preview = get().preview;
  if (!s.workspace || !preview || s.busy) return;
  useStore.setState({ busy: true });
  set({ busy: true });
  try {
    const r = await api.revert({
      workspace: s.workspace.id,
      target: preview.target.hash,
      merge: preview.conflicts.length > 0,
    });
    if (!r.ok) return fail(r.error);
    closeRevertPreview();
    useStore.setState({ banner: { text: describeRevert(r.value), rid: r.value.restore, undo: 'undo' }, error: null });
  } finally {
    set({ busy: false });
    useStore.setState({ busy: false });
  }
  await loadRestores();
  refreshWorking();
}

export function describeRevert(r: RevertResult): string {
  const files = `${plural(r.changed.length, 'file')} changed`;
  const conflicts = r.conflicts.length > 0 ? `; conflict markers in ${r.conflicts.map((c) => c.path).join(', ')}` : '';
  return `Reverted the step of ${shortHash(r.target.hash)}, later changes kept: ${files}${conflicts}.`;
}

/** The diff editor computed its hunks for `key` (workspace, sides and file of the main view). */
export function setLineChanges(key: string | null, changes: readonly LineChange[] | null): void {
  set({ hunksKey: key, lineChanges: changes ? [...changes] : [] });
}

/**
 * Restore or revert hunk `index` of the file the main view shows: "restore" brings the compared checkpoint's
 * version of those lines into the files now, "revert" takes the hunk's change back from them.
 */
export async function applyHunk(index: number, action: 'restore' | 'revert'): Promise<void> {
  const s = useStore.getState();
  const sides = diffSides(s, s.selected);
  const change = get().lineChanges[index];
  if (!s.workspace || !sides || !change || !s.selectedPath || s.busy) return;
  const oldPath = s.summary?.files.find((f) => f.path === s.selectedPath)?.oldPath;
  useStore.setState({ busy: true });
  try {
    const r = await api.applyHunk({
      workspace: s.workspace.id,
      from: sides.from,
      to: sides.to,
      path: s.selectedPath,
      ...(oldPath ? { oldPath } : {}),
      hunk: toHunkRange(change),
      action,
    });
    if (!r.ok) return fail(r.error);
    const verb = action === 'restore' ? 'Restored' : 'Reverted';
    useStore.setState({
      banner: {
        text: `${verb} a hunk of ${s.selectedPath} (${describeLines(change)}).`,
        rid: r.value.restore,
        undo: 'undo',
      },
      error: null,
    });
  } finally {
    useStore.setState({ busy: false });
  }
  await loadRestores();
  refreshWorking();
}

/** Monaco's 1-based change → the engine's 0-based ranges (a count of 0 inserts before `start`). */
export function toHunkRange(c: LineChange): { fromStart: number; fromCount: number; toStart: number; toCount: number } {
  const side = (start: number, end: number) =>
    end === 0 ? { start, count: 0 } : { start: start - 1, count: end - start + 1 };
  const from = side(c.originalStartLineNumber, c.originalEndLineNumber);
  const to = side(c.modifiedStartLineNumber, c.modifiedEndLineNumber);
  return { fromStart: from.start, fromCount: from.count, toStart: to.start, toCount: to.count };
}

/** "lines 3–4", "line 7", "removed after line 2": the hunk as a person finds it in the After side. */
export function describeLines(c: LineChange): string {
  if (c.modifiedEndLineNumber === 0) return `lines removed after line ${c.modifiedStartLineNumber}`;
  const a = c.modifiedStartLineNumber;
  const b = c.modifiedEndLineNumber;
  return a === b ? `line ${a}` : `lines ${a}–${b}`;
}

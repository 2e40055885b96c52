/**
 * Keypress-to-diff timing: a mark when a checkpoint move is requested, a measure when the diff editor has
 * shown that checkpoint's diff. The e2e reads the "retrace:key-to-diff" measures.
 */
const START = 'retrace:select';
export const KEY_TO_DIFF = 'retrace:key-to-diff';
/** Keypress → the diff's data (summary and file contents) in the store, before Monaco renders it. */
export const KEY_TO_DATA = 'retrace:key-to-data';
let pending = false;
let dataPending = false;

export function markDiffRequested(): void {
  performance.clearMarks(START);
  performance.mark(START);
  pending = true;
  dataPending = true;
}

export function markDataReady(): void {
  if (!dataPending) return;
  dataPending = false;
  performance.measure(KEY_TO_DATA, START);
}

/** Called when a diff (or its plain notice) is on screen. */
export function markDiffShown(): void {
  if (!pending) return;
  pending = false;
  performance.measure(KEY_TO_DIFF, START);
}

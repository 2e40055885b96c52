/**
 * Keypress-to-diff timing: a mark when a checkpoint move is requested, a measure when the diff editor has
 * shown that checkpoint's diff. The e2e reads the "retrace:key-to-diff" measures.
 */
const START = 'retrace:select';
export const KEY_TO_DIFF = 'retrace:key-to-diff';
let pending = false;

export function markDiffRequested(): void {
  performance.clearMarks(START);
  performance.mark(START);
  pending = true;
}

/** Called when a diff (or its plain notice) is on screen. */
export function markDiffShown(): void {
  if (!pending) return;
  pending = false;
  performance.measure(KEY_TO_DIFF, START);
}

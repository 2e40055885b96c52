/**
 * The words for what an undo did, shared by the CLI and the app's banner, so that undoing a conversation
 * restore says "messages shown again" rather than "0 files changed back" (issue 12).
 */
import type { RestoreEntry, UndoResult } from './model';

/** Undoing `e` re-applies a restore (e is an undo that took one back) rather than taking one back. */
export function undoingReapplies(e: RestoreEntry): boolean {
  return e.mode === 'undo' && e.redo !== true;
}

/** "Undo" or "Redo": what undoing entry `e` amounts to, for its button. */
export function undoLabel(e: RestoreEntry): 'Undo' | 'Redo' {
  return undoingReapplies(e) ? 'Redo' : 'Undo';
}

/** What kind of restore an entry is about (an undo is about the restore at the root of its chain). */
export function restoreKind(e: RestoreEntry): string {
  const mode = e.mode === 'undo' ? (e.undoes ?? 'code') : e.mode;
  switch (mode) {
    case 'code':
      return 'code restore';
    case 'conversation':
      return 'conversation restore';
    case 'both':
      return 'code and conversation restore';
    case 'revert':
      return 'revert';
  }
}

/** One sentence: what undoing `undone` (the ledger entry the undo inverted) changed. */
export function describeUndo(r: UndoResult, undone: RestoreEntry | undefined): string {
  if (!undone) return `Undid ${r.undone}: ${files(r.changed.length)} changed.`;
  const again = undoingReapplies(undone);
  const mode = undone.mode === 'undo' ? undone.undoes : undone.mode;
  const parts: string[] = [];
  if (mode !== 'conversation') parts.push(`${files(r.changed.length)} ${again ? 'restored again' : 'changed back'}`);
  if (mode === 'conversation' || mode === 'both')
    parts.push(again ? 'the later messages are hidden again' : 'the hidden messages are shown again');
  const what = mode === 'revert' ? 'the revert' : `the restore (${mode === 'both' ? 'code and conversation' : mode})`;
  return `${again ? 'Redid' : 'Undid'} ${what}: ${parts.join(', ')}.`;
}

function files(n: number): string {
  return `${n} ${n === 1 ? 'file' : 'files'}`;
}

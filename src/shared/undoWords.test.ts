import { describe, expect, it } from 'vitest';
import type { RestoreEntry } from './model';
import { describeUndo, undoLabel } from './undoWords';

const target = { hash: 'a'.repeat(40), message: 'm', session: 's' };
const entry = (e: Partial<RestoreEntry>): RestoreEntry => ({
  restore: 'r_1',
  mode: 'code',
  target,
  ts: 't',
  changed: 0,
  undone: true,
  ...e,
});
const result = (changed: string[]) => ({ undone: 'r_1', restore: 'r_2', changed });

describe('undo words (issue 12: a conversation undo never says "0 files changed back")', () => {
  it('says what was taken back: files, messages, or both', () => {
    expect(describeUndo(result(['a']), entry({}))).toBe('Undid the restore (code): 1 file changed back.');
    expect(describeUndo(result([]), entry({ mode: 'conversation' }))).toBe(
      'Undid the restore (conversation): the hidden messages are shown again.',
    );
    expect(describeUndo(result(['a', 'b']), entry({ mode: 'both' }))).toBe(
      'Undid the restore (code and conversation): 2 files changed back, the hidden messages are shown again.',
    );
  });

  it('undoing an undo is a redo; undoing a redo is an undo again', () => {
    const undo = entry({ mode: 'undo', undoOf: 'r_0', undoes: 'conversation', redo: false });
    expect(undoLabel(undo)).toBe('Redo');
    expect(describeUndo(result([]), undo)).toBe(
      'Redid the restore (conversation): the later messages are hidden again.',
    );
    const redo = entry({ mode: 'undo', undoOf: 'u_1', undoes: 'code', redo: true });
    expect(undoLabel(redo)).toBe('Undo');
    expect(describeUndo(result(['a']), redo)).toBe('Undid the restore (code): 1 file changed back.');
    expect(undoLabel(entry({ mode: 'revert' }))).toBe('Undo');
  });
});

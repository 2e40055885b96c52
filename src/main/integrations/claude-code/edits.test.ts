import { describe, expect, it } from 'vitest';
import { applyHunks, applyStringEdit, applyStringEdits } from './edits';

describe('replaying edits', () => {
  it('Edit: first occurrence, or all with replace_all; refuses an old string that is not there', () => {
    expect(applyStringEdit('a b a', { oldString: 'a', newString: 'x' })).toBe('x b a');
    expect(applyStringEdit('a b a', { oldString: 'a', newString: 'x', replaceAll: true })).toBe('x b x');
    expect(applyStringEdit('a b a', { oldString: 'zz', newString: 'x' })).toBeNull();
    expect(applyStringEdit('', { oldString: '', newString: 'new file\n' })).toBe('new file\n');
    expect(
      applyStringEdits('one two', [
        { oldString: 'one', newString: '1' },
        { oldString: 'two', newString: '2' },
      ]),
    ).toBe('1 2');
    expect(
      applyStringEdits('one', [
        { oldString: 'one', newString: '1' },
        { oldString: 'one', newString: '2' },
      ]),
    ).toBeNull();
  });

  it('structuredPatch hunks: context must match; keeps the final newline as it was', () => {
    const text = 'a\nb\nc\nd\n';
    expect(
      applyHunks(text, [{ oldStart: 2, oldLines: 2, newStart: 2, newLines: 3, lines: [' b', '-c', '+C', '+C2'] }]),
    ).toBe('a\nb\nC\nC2\nd\n');
    expect(applyHunks('a\nb', [{ oldStart: 2, oldLines: 1, newStart: 2, newLines: 1, lines: ['-b', '+B'] }])).toBe(
      'a\nB',
    );
    expect(applyHunks(text, [{ oldStart: 2, oldLines: 1, newStart: 2, newLines: 1, lines: ['-x', '+y'] }])).toBeNull();
    expect(applyHunks(text, [{ oldStart: 4, oldLines: 0, newStart: 5, newLines: 1, lines: ['+e'] }])).toBe(
      'a\nb\nc\nd\ne\n',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { applySearchReplace, looksLikeSearchReplace, parseSearchReplace, reverseSearchReplace } from './searchReplace';

const diff = (...pairs: [string, string][]) =>
  pairs.map(([s, r]) => `------- SEARCH\n${s}\n=======\n${r}\n+++++++ REPLACE`).join('\n\n') + '\n';

describe('Cline SEARCH/REPLACE blocks', () => {
  it('parses the current and the older marker styles; an open block is not a diff', () => {
    expect(parseSearchReplace(diff(['a', 'b'], ['c\nd', '']))).toEqual([
      { search: 'a\n', replace: 'b\n' },
      { search: 'c\nd\n', replace: '\n' },
    ]);
    expect(parseSearchReplace('<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n')).toEqual([
      { search: 'x\n', replace: 'y\n' },
    ]);
    expect(parseSearchReplace('------- SEARCH\nx\n=======\ny\n')).toBeNull();
    expect(looksLikeSearchReplace('fileFormatVersion: 2\n')).toBe(false);
    expect(looksLikeSearchReplace(diff(['a', 'b']))).toBe(true);
  });

  it('applies blocks in order, exactly or line by line ignoring surrounding spaces; null when one does not match', () => {
    const before = 'one\n  two\nthree\ntwo\n';
    // Exact text first, as Cline: the first occurrence, even inside a longer line.
    expect(applySearchReplace(before, parseSearchReplace(diff(['two', 'TWO']))!)).toBe('one\n  TWO\nthree\ntwo\n');
    expect(applySearchReplace(before, parseSearchReplace(diff(['one', '1'], ['three', '3']))!)).toBe(
      '1\n  two\n3\ntwo\n',
    );
    expect(applySearchReplace('a\n   b  \nc\n', parseSearchReplace(diff(['b', 'B']))!)).toBe('a\nB\nc\n');
    expect(applySearchReplace(before, parseSearchReplace(diff(['four', '4']))!)).toBeNull();
    // An empty SEARCH replaces the whole file.
    expect(applySearchReplace('old\n', [{ search: '', replace: 'new\n' }])).toBe('new\n');
  });

  it('walks back: the content before, checked by replaying; null when the REPLACE text is gone or left no trace', () => {
    const b = parseSearchReplace(diff(['const a = 1;', 'const a = 2;'], ['const c = 1;', 'const c = 3;']))!;
    const before = 'const a = 1;\nconst b = 1;\nconst c = 1;\n';
    const after = applySearchReplace(before, b)!;
    expect(reverseSearchReplace(after, b)).toBe(before);
    expect(reverseSearchReplace('const a = 9;\n', b)).toBeNull();
    expect(reverseSearchReplace('x\n', [{ search: 'y\n', replace: '' }])).toBeNull();
    expect(reverseSearchReplace('x\n', [{ search: '', replace: 'x\n' }])).toBeNull();
  });
});

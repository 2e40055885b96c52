import { describe, expect, it } from 'vitest';
import { applyChunks, parsePatch, PatchError } from './patch';

const P = (body: string): string => `*** Begin Patch\n${body}\n*** End Patch`;

describe('apply_patch format', () => {
  it('reads add, delete, update with a move, and several chunks', () => {
    const ops = parsePatch(
      P(
        [
          '*** Add File: a.txt',
          '+one',
          '+two',
          '*** Delete File: gone.txt',
          '*** Update File: src/x.ts',
          '*** Move to: src/y.ts',
          '@@ function f() {',
          '-  return 1;',
          '+  return 2;',
          '@@',
          ' tail',
          '+added',
        ].join('\n'),
      ),
    );
    expect(ops).toEqual([
      { kind: 'add', path: 'a.txt', content: 'one\ntwo\n' },
      { kind: 'delete', path: 'gone.txt' },
      {
        kind: 'update',
        path: 'src/x.ts',
        moveTo: 'src/y.ts',
        chunks: [
          { anchor: 'function f() {', oldLines: ['  return 1;'], newLines: ['  return 2;'], atEndOfFile: false },
          { anchor: null, oldLines: ['tail'], newLines: ['tail', 'added'], atEndOfFile: false },
        ],
      },
    ]);
  });

  it('refuses what is not a patch, with the reason', () => {
    expect(() => parsePatch('hello')).toThrow(PatchError);
    expect(() => parsePatch('*** Begin Patch\n*** Add File: a\n+x')).toThrow(/End Patch/);
    expect(() => parsePatch(P('garbage line'))).toThrow(/unexpected line/);
  });

  const file = 'function f() {\n  return 1;\n}\nfunction g() {\n  return 1;\n}\n';
  const [op] = parsePatch(P('*** Update File: x\n@@ function g() {\n-  return 1;\n+  return 3;'));

  it('applies a chunk after its anchor line, and undoes it exactly', () => {
    if (op?.kind !== 'update') throw new Error('not an update');
    const after = applyChunks(file, op.chunks);
    expect(after).toBe('function f() {\n  return 1;\n}\nfunction g() {\n  return 3;\n}\n');
    expect(applyChunks(after, op.chunks, true)).toBe(file);
  });

  it('matches lines that differ only in trailing or surrounding white space', () => {
    if (op?.kind !== 'update') throw new Error('not an update');
    const spaced = file.replace('  return 1;\n}\n', '  return 1;   \n}\n');
    expect(applyChunks(spaced.replace('function g', 'function g'), op.chunks)).toContain('return 3;');
  });

  it('fails, never guesses, when the lines are not there', () => {
    if (op?.kind !== 'update') throw new Error('not an update');
    expect(() => applyChunks('something else\n', op.chunks)).toThrow(PatchError);
  });

  it('an *** End of File chunk matches at the end only', () => {
    const [u] = parsePatch(P('*** Update File: x\n@@\n-x\n+y\n*** End of File'));
    if (u?.kind !== 'update') throw new Error('not an update');
    expect(applyChunks('x\nmid\nx\n', u.chunks)).toBe('x\nmid\ny\n');
  });
});

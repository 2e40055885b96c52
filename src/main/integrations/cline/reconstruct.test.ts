import { describe, expect, it } from 'vitest';
import type { ClineEdit } from './edits';
import { reconstructClineEdits } from './reconstruct';
import { parseSearchReplace } from './searchReplace';

let ts = 0;
const create = (path: string, content: string): ClineEdit => ({ index: ts, ts: ts++, path, kind: 'create', content });
const write = (path: string, content: string): ClineEdit => ({ index: ts, ts: ts++, path, kind: 'write', content });
const edit = (path: string, s: string, r: string, saved?: string): ClineEdit => ({
  index: ts,
  ts: ts++,
  path,
  kind: 'blocks',
  blocks: parseSearchReplace(`------- SEARCH\n${s}\n=======\n${r}\n+++++++ REPLACE\n`),
  ...(saved !== undefined ? { saved } : {}),
});
const none = () => null;

describe('Cline steps rebuilt from edits', () => {
  it('a new file then blocks: each step holds the file as it was; the start has it absent', () => {
    const rec = reconstructClineEdits([create('a.ts', 'x = 1\n'), edit('a.ts', 'x = 1', 'x = 2')], {
      cwd: '/ws',
      readWorkspace: none,
    });
    expect(rec.initial).toEqual(new Map([['a.ts', null]]));
    expect(rec.steps.map((s) => s.states.get('a.ts'))).toEqual(['x = 1\n', 'x = 2\n']);
    expect(rec.steps.map((s) => s.rebuilt)).toEqual([['a.ts'], ['a.ts']]);
  });

  it("a file the task did not create: walked back from the saved result, else from the workspace's copy", () => {
    const fromSaved = reconstructClineEdits([edit('b.ts', 'v1', 'v2', 'v2\nend\n')], {
      cwd: '/ws',
      readWorkspace: none,
    });
    expect(fromSaved.initial.get('b.ts')).toBe('v1\nend\n');
    const fromWorkspace = reconstructClineEdits([edit('/ws/c.ts', 'v1', 'v2'), edit('c.ts', 'v2', 'v3')], {
      cwd: '/ws',
      readWorkspace: (p) => (p === 'c.ts' ? 'v3\n' : null),
    });
    expect(fromWorkspace.initial.get('c.ts')).toBe('v1\n');
    expect(fromWorkspace.steps.map((s) => s.states.get('c.ts'))).toEqual(['v2\n', 'v3\n']);
  });

  it('reports what cannot be rebuilt, with its reason; a whole-file write needs no earlier content', () => {
    const rec = reconstructClineEdits(
      [edit('d.ts', 'v1', 'v2'), write('e.meta', 'guid\n'), create('/elsewhere/f.ts', 'f'), create('.git/config', 'x')],
      { cwd: '/ws', readWorkspace: (p) => (p === 'd.ts' ? 'changed since\n' : null) },
    );
    expect(rec.steps.map((s) => [s.rebuilt, s.missing])).toEqual([
      [[], [{ path: 'd.ts', reason: expect.stringMatching(/content before the edit is unknown/) }]],
      [['e.meta'], []],
      [[], [{ path: '/elsewhere/f.ts', reason: 'outside the workspace' }]],
      [[], [{ path: '.git/config', reason: 'inside a .git folder, which checkpoints never hold' }]],
    ]);
    expect(rec.initial.has('e.meta')).toBe(false);
    expect(rec.touched).toEqual(['d.ts', 'e.meta']);
  });

  it('the file as saved wins over the replayed edit, and the difference is reported (a formatter, the diff view)', () => {
    const formatted: ClineEdit = { ...create('g.ts', "x = 'a'\n"), saved: 'x = "a"\n' };
    const rec = reconstructClineEdits([formatted], { cwd: '/ws', readWorkspace: none });
    expect(rec.steps[0]!.states.get('g.ts')).toBe('x = "a"\n');
    expect(rec.warnings).toEqual([expect.stringMatching(/1 file\(s\) were saved differently .*: g\.ts$/)]);
  });
});

import { describe, expect, it } from 'vitest';
import type { FileChange } from '../../shared/model';
import { buildRows, filterFiles, firstFile, naturalCompare, sortFiles } from './fileTree';

const file = (path: string, extra: Partial<FileChange> = {}): FileChange => ({
  path,
  status: 'modified',
  binary: false,
  insertions: 1,
  deletions: 0,
  ...extra,
});
const paths = (fs: FileChange[]) => fs.map((f) => f.path);
const none = new Set<string>();

describe('natural order', () => {
  it('puts file2 before file10 and ignores case, and is a total order', () => {
    expect(['file10.ts', 'file2.ts', 'File1.ts', 'file1.ts'].sort(naturalCompare)).toEqual([
      'File1.ts',
      'file1.ts',
      'file2.ts',
      'file10.ts',
    ]);
    expect(naturalCompare('a', 'a')).toBe(0);
    expect(Math.sign(naturalCompare('A', 'a'))).toBe(-Math.sign(naturalCompare('a', 'A')));
    expect(paths(sortFiles([file('src/v10/a'), file('src/v9/a'), file('README.md')]))).toEqual([
      'README.md',
      'src/v9/a',
      'src/v10/a',
    ]);
  });

  it('opens a comparison on the first file of that order', () => {
    expect(firstFile([file('step10.ts'), file('step2.ts'), file('step1.ts')])?.path).toBe('step1.ts');
    expect(firstFile([])).toBeUndefined();
  });
});

describe('filter', () => {
  it('matches a substring of the path, in any case, and a rename by its former path too', () => {
    const files = [file('src/Button.tsx'), file('docs/readme.md'), file('lib/new.ts', { oldPath: 'lib/Old.ts' })];
    expect(paths(filterFiles(files, 'button'))).toEqual(['src/Button.tsx']);
    expect(paths(filterFiles(files, 'OLD'))).toEqual(['lib/new.ts']);
    expect(paths(filterFiles(files, '  '))).toEqual(paths(files));
    expect(filterFiles(files, 'nothing-like-it')).toEqual([]);
  });
});

describe('tree rows', () => {
  const files = [
    file('src/file10.ts'),
    file('src/file2.ts'),
    file('src/lib/deep/x.ts'),
    file('README.md'),
    file('docs/a.md'),
  ];

  it('lists folders first, then files, each level naturally; single-folder chains merge', () => {
    const rows = buildRows(files, { tree: true, collapsed: none, filter: '' });
    expect(rows.map((r) => `${'  '.repeat(r.depth)}${r.label}${r.kind === 'folder' ? `/ (${r.files})` : ''}`)).toEqual([
      'docs/ (1)',
      '  a.md',
      'src/ (3)',
      '  lib/deep/ (1)',
      '    x.ts',
      '  file2.ts',
      '  file10.ts',
      'README.md',
    ]);
    const deep = rows.find((r) => r.kind === 'folder' && r.label === 'lib/deep');
    expect(deep).toMatchObject({ path: 'src/lib/deep', key: 'dir:src/lib/deep', expanded: true });
  });

  it('leaves out what a collapsed folder holds, unless a filter is typed', () => {
    const collapsed = new Set(['src']);
    const rows = buildRows(files, { tree: true, collapsed, filter: '' });
    expect(rows.map((r) => r.label)).toEqual(['docs', 'a.md', 'src', 'README.md']);
    expect(rows.find((r) => r.label === 'src')).toMatchObject({ kind: 'folder', expanded: false, files: 3 });
    const filtered = buildRows(files, { tree: true, collapsed, filter: 'file1' });
    expect(filtered.map((r) => r.label)).toEqual(['src', 'file10.ts']);
  });

  it('flat: whole paths, naturally ordered, filtered', () => {
    const rows = buildRows(files, { tree: false, collapsed: new Set(['src']), filter: 'src/' });
    expect(rows.map((r) => r.label)).toEqual(['src/file2.ts', 'src/file10.ts', 'src/lib/deep/x.ts']);
    expect(rows.every((r) => r.kind === 'file' && r.depth === 0)).toBe(true);
  });

  it('keeps ten thousand files to one pass (no quadratic work)', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => file(`pkg${i % 50}/mod${i}.ts`));
    const t = performance.now();
    const rows = buildRows(many, { tree: true, collapsed: none, filter: '' });
    expect(rows).toHaveLength(10_050);
    expect(performance.now() - t).toBeLessThan(1000);
  });
});

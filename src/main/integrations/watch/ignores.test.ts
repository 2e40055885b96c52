import { describe, expect, it } from 'vitest';
import { dataHomeInside, isIgnoredEvent, rulesAsGlobs } from './ignores';

describe('watcher ignores', () => {
  it('turns simple gitignore lines into globs on root-relative paths', () => {
    expect(rulesAsGlobs(['# comment', '', 'build/', '*.log', '/dist', 'docs/out'])).toEqual([
      '**/build',
      '**/build/**',
      '**/*.log',
      '**/*.log/**',
      'dist',
      'dist/**',
      'docs/out',
      'docs/out/**',
    ]);
  });

  it('translates nothing from a file with a negation (a folder ignored natively would hide the file taken back)', () => {
    expect(rulesAsGlobs(['logs/', '!logs/keep.txt'])).toEqual([]);
  });

  it('drops events that no checkpoint captures, and the data home inside the folder', () => {
    expect(isIgnoredEvent('node_modules/x/y.js', null)).toBe(true);
    expect(isIgnoredEvent('a/.git/HEAD', null)).toBe(true);
    expect(isIgnoredEvent('.env', null)).toBe(true);
    expect(isIgnoredEvent('.retrace-data/workspaces/x', '.retrace-data')).toBe(true);
    expect(isIgnoredEvent('src/app.ts', '.retrace-data')).toBe(false);
    expect(dataHomeInside('/w', '/w/.data')).toBe('.data');
    expect(dataHomeInside('/w', '/elsewhere')).toBeNull();
  });
});

import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { countLines } from './lineCounts';

/** git's own numstat for a blob added to an empty repository. */
function gitNumstat(bytes: Buffer): string {
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  const dir = execFileSync('mktemp', ['-d']).toString().trim();
  try {
    execFileSync('git', ['init', '-q', '--bare', dir], { env });
    const blob = execFileSync('git', [`--git-dir=${dir}`, 'hash-object', '-w', '--stdin'], { env, input: bytes })
      .toString()
      .trim();
    const tree = execFileSync('git', [`--git-dir=${dir}`, 'mktree'], { env, input: `100644 blob ${blob}\tf\n` })
      .toString()
      .trim();
    const empty = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
    return execFileSync('git', [`--git-dir=${dir}`, 'diff-tree', '-r', '--numstat', empty, tree], { env })
      .toString()
      .split('\t')
      .slice(0, 2)
      .join(' ');
  } finally {
    execFileSync('rm', ['-rf', dir]);
  }
}

describe('countLines', () => {
  it('agrees with git numstat on line endings, empty blobs and the binary sniff', () => {
    const cases = [
      '',
      'a',
      'a\n',
      'a\nb',
      '\n\n\n',
      'a\r\nb\r\n',
      'a\rb\r',
      `${'x'.repeat(7999)}\0`,
      `${'x'.repeat(8000)}\0\nmore`,
      'ab\0c\n',
      'ünïcödé\nline',
    ].map((c) => Buffer.from(c, 'utf8'));
    for (const bytes of cases) {
      const c = countLines(bytes);
      expect(c.binary ? '- -' : `${c.lines} 0`, JSON.stringify(bytes.toString())).toBe(gitNumstat(bytes));
    }
  });
});

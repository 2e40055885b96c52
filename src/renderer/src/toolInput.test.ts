import { describe, expect, it } from 'vitest';
import { readableInput } from './toolInput';

describe('readableInput', () => {
  it('an object with a multi-line string: one field per line, the long text as a block under its name', () => {
    const input = JSON.stringify(
      { description: 'Round 2', prompt: 'You are carol.\n\n## Context\nThe repo.', limits: { turns: 3 }, run: true },
      null,
      2,
    );
    expect(readableInput(input)).toBe(
      [
        'description: Round 2',
        'prompt:',
        '  You are carol.',
        '',
        '  ## Context',
        '  The repo.',
        'limits: {\n  "turns": 3\n}',
        'run: true',
      ].join('\n'),
    );
  });

  it('anything else as given: one-line JSON fields, a command, an array, a cut text', () => {
    const oneLine = JSON.stringify({ pattern: '**/*.md', path: 'src' }, null, 2);
    expect(readableInput(oneLine)).toBe(oneLine);
    expect(readableInput('npm test -- --reporter=dot')).toBe('npm test -- --reporter=dot');
    expect(readableInput('["a\\nb"]')).toBe('["a\\nb"]');
    const cut = '{\n  "prompt": "a\\nb…\n… (cut: 10 more characters not kept)';
    expect(readableInput(cut)).toBe(cut);
  });
});

/** `import auto`: each agent's shape is told apart from a few lines; anything else says what it looked like. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../test/helpers/tmp';
import { detectFormat } from './detect';

afterAll(cleanupTempDirs);
const dir = tempDir('retrace-detect-');
const file = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const jsonl = (...recs: object[]): string => recs.map((r) => JSON.stringify(r)).join('\n') + '\n';

describe('detectFormat', () => {
  const cases: [string, string, string | null][] = [
    [
      'claude.jsonl',
      jsonl(
        { type: 'summary', summary: 'x', leafUuid: 'u' },
        { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', message: { role: 'user', content: 'hi' } },
      ),
      'claude-code',
    ],
    [
      'codex.jsonl',
      jsonl({ timestamp: '2025-11-22T20:45:35Z', type: 'session_meta', payload: { id: 'x', cwd: '/p' } }),
      'codex',
    ],
    ['gemini.json', JSON.stringify({ sessionId: 's', projectHash: 'h', messages: [] }, null, 2), 'gemini'],
    [
      'gemini.jsonl',
      jsonl({ sessionId: 's', projectHash: 'h', startTime: 't' }, { id: 'u1', type: 'user', content: 'hi' }),
      'gemini',
    ],
    ['empty.jsonl', '', null],
    ['notes.txt', 'just some words\n', null],
    ['other.jsonl', jsonl({ kind: 'log', level: 'info' }), null],
  ];
  it.each(cases)('%s → %s', (name, text, want) => {
    expect(detectFormat(file(name, text)).format).toBe(want);
  });

  it('a Cline task folder, and a folder that is not one', () => {
    const task = join(dir, '1748768400000');
    mkdirSync(task);
    writeFileSync(join(task, 'ui_messages.json'), '[]');
    expect(detectFormat(task).format).toBe('cline');
    expect(detectFormat(dir)).toEqual({ format: null, looksLike: 'a folder without ui_messages.json' });
  });

  it('says what an unknown file looked like', () => {
    expect(detectFormat(join(dir, 'other.jsonl')).looksLike).toMatch(/unknown kind \(first keys: kind, level\)/);
    expect(detectFormat(join(dir, 'missing')).looksLike).toMatch(/no such file/);
  });
});

import { describe, expect, it } from 'vitest';
import { clineCwdHash, parseClineMessages } from './uiMessages';

describe('Cline ui_messages', () => {
  it('cwdHash: the 31-polynomial over UTF-16 units, unsigned 32-bit, decimal', () => {
    expect(clineCwdHash('')).toBe('0');
    expect(clineCwdHash('a')).toBe('97');
    expect(clineCwdHash('ab')).toBe(String(97 * 31 + 98));
    // Long paths wrap at 2^32 and stay at most 10 digits; non-ASCII counts UTF-16 units.
    const h = clineCwdHash('/home/someone/projects/a-rather-long-project-name/with/nested/folders');
    expect(h).toMatch(/^\d{1,10}$/);
    expect(Number(h)).toBeLessThan(2 ** 32);
    expect(clineCwdHash('é')).toBe('233');
    expect(clineCwdHash('😀')).toBe(String(((0xd83d * 31) >>> 0) + 0xde00));
  });

  it('maps say/ask kinds, skips bookkeeping, keeps checkpoint hashes and every message (none hidden)', () => {
    const h = 'a'.repeat(40);
    const conv = parseClineMessages([
      { ts: 1, type: 'say', say: 'task', text: 'do it', images: ['x'] },
      { ts: 2, type: 'say', say: 'api_req_started', text: '{}' },
      { ts: 3, type: 'say', say: 'text', text: 'partial', partial: true },
      { ts: 4, type: 'say', say: 'text', text: 'thinking out loud', conversationHistoryIndex: 2 },
      { ts: 5, type: 'ask', ask: 'followup', text: JSON.stringify({ question: 'Which file?', options: ['a'] }) },
      { ts: 6, type: 'say', say: 'checkpoint_created', lastCheckpointHash: h },
      { ts: 7, type: 'say', say: 'mystery_kind', text: '?' },
      { ts: 8, type: 'say', say: 'command', text: 'ls' },
      { ts: 9, type: 'ask', ask: 'command_output', text: 'a.txt' },
      { ts: 9, type: 'ask', ask: 'command_output', text: 'b.txt' },
      { ts: 10, type: 'say', say: 'completion_result', text: 'done', conversationHistoryDeletedRange: [1, 2] },
      { ts: 11, type: 'ask', ask: 'completion_result', text: '' },
      { nots: true },
    ]);
    expect(conv.messages.map((m) => [m.role, m.text, m.checkpoint])).toEqual([
      ['user', 'do it\n[1 image(s)]', null],
      ['assistant', 'partial', null],
      ['assistant', 'thinking out loud', null],
      ['assistant', 'Which file?', null],
      ['system', 'Checkpoint', h],
      ['tool', 'command ls\na.txt\nb.txt', null],
      ['assistant', 'done', null],
    ]);
    expect(conv.messages.map((m) => m.meta.sourceId)).toEqual(['1', '3', '4', '5', '6', '8', '10']);
    expect(conv.messages.some((m) => m.meta.partial)).toBe(false);
    expect(conv.task).toBe('do it');
    expect(conv.warnings).toEqual([
      'skipped 1 entr(ies) without a timestamp',
      'skipped 1 message(s) of unknown kind say:mystery_kind',
    ]);
  });

  it('the first message is the task prompt even when saved as say:"text"; later texts are the assistant', () => {
    const conv = parseClineMessages([
      { ts: 1, type: 'say', say: 'text', text: 'Fix the bug' },
      { ts: 2, type: 'say', say: 'text', text: 'Looking.' },
      { ts: 3, type: 'say', say: 'user_feedback', text: 'faster' },
    ]);
    expect(conv.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(conv.task).toBe('Fix the bug');
  });

  it('partial entries: a streaming state replaced in place is dropped, a finished one kept, a trailing one marked', () => {
    const conv = parseClineMessages([
      { ts: 1, type: 'say', say: 'task', text: 'go' },
      { ts: 2, type: 'say', say: 'text', text: 'I wi', partial: true },
      { ts: 2, type: 'say', say: 'text', text: 'I will read it.', partial: false },
      { ts: 3, type: 'say', say: 'reasoning', text: 'Small file.', partial: true },
      { ts: 4, type: 'say', say: 'tool', text: JSON.stringify({ tool: 'readFile', path: 'a' }) },
      { ts: 5, type: 'say', say: 'text', text: 'It say', partial: true },
      { ts: 6, type: 'say', say: 'checkpoint_created', lastCheckpointHash: 'b'.repeat(40) },
      { ts: 7, type: 'ask', ask: 'resume_task' },
    ]);
    expect(conv.messages.map((m) => [m.text, m.meta.partial ?? false, m.meta.reasoning ?? false])).toEqual([
      ['go', false, false],
      ['I will read it.', false, false],
      ['Small file.', false, true],
      ['readFile a', false, false],
      ['It say', true, false],
      ['Checkpoint', false, false],
    ]);
  });
});

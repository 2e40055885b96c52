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

  it('maps say/ask kinds, skips partial and bookkeeping, keeps checkpoint hashes, hides the deleted range', () => {
    const h = 'a'.repeat(40);
    const conv = parseClineMessages([
      { ts: 1, type: 'say', say: 'task', text: 'do it', images: ['x'] },
      { ts: 2, type: 'say', say: 'api_req_started', text: '{}' },
      { ts: 3, type: 'say', say: 'text', text: 'partial', partial: true },
      { ts: 4, type: 'say', say: 'text', text: 'thinking out loud', conversationHistoryIndex: 2 },
      { ts: 5, type: 'ask', ask: 'followup', text: JSON.stringify({ question: 'Which file?', options: ['a'] }) },
      { ts: 6, type: 'say', say: 'checkpoint_created', lastCheckpointHash: h },
      { ts: 7, type: 'say', say: 'mystery_kind', text: '?' },
      { ts: 8, type: 'say', say: 'completion_result', text: 'done', conversationHistoryDeletedRange: [1, 2] },
      { nots: true },
    ]);
    expect(conv.messages.map((m) => [m.role, m.text, m.checkpoint, m.hidden])).toEqual([
      ['user', 'do it\n[1 image(s)]', null, false],
      ['assistant', 'thinking out loud', null, true],
      ['assistant', 'Which file?', null, false],
      ['system', 'Checkpoint', h, false],
      ['assistant', 'done', null, false],
    ]);
    expect(conv.messages[0]!.meta.sourceId).toBe('1');
    expect(conv.task).toBe('do it');
    expect(conv.warnings.join('\n')).toMatch(/1 partial/);
    expect(conv.warnings.join('\n')).toMatch(/unknown kind say:mystery_kind/);
    expect(conv.warnings.join('\n')).toMatch(/without a timestamp/);
  });
});

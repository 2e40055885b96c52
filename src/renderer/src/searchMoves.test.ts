/** Moving between matches and prompts (store/searchMoves.ts). */
import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../../shared/model';
import { checkpointForRow, nextHit, nextRow } from './store/searchMoves';

const hit = (session: string, index: number): SearchHit => ({
  session,
  message: `${session}-${index}`,
  ts: '2026-12-01T10:00:00.000Z',
  role: 'user',
  snippet: '',
  hash: null,
  paths: [],
  index,
});

describe('nextRow', () => {
  it('goes to the next or previous matching row, wrapping round; nothing without rows', () => {
    const rows = [2, 5, 9];
    expect(nextRow(rows, 2, 1)).toBe(5);
    expect(nextRow(rows, 3, 1)).toBe(5);
    expect(nextRow(rows, 9, 1)).toBe(2);
    expect(nextRow(rows, -1, 1)).toBe(2);
    expect(nextRow(rows, 5, -1)).toBe(2);
    expect(nextRow(rows, 2, -1)).toBe(9);
    expect(nextRow([], 0, 1)).toBeUndefined();
  });
});

describe('nextHit across sessions', () => {
  // Newest session first (b), then a.
  const hits = [hit('b', 1), hit('b', 4), hit('a', 0), hit('a', 7)];
  it('moves within the session, then on to the next one, wrapping round', () => {
    expect(nextHit(hits, 'b', 1, 1)).toBe(hits[1]);
    expect(nextHit(hits, 'b', 4, 1)).toBe(hits[2]);
    expect(nextHit(hits, 'a', 7, 1)).toBe(hits[0]);
    expect(nextHit(hits, 'a', 0, -1)).toBe(hits[1]);
    expect(nextHit(hits, 'b', 1, -1)).toBe(hits[3]);
    expect(nextHit(hits, 'a', 3, -1)).toBe(hits[2]);
  });
  it('from a session without hits: the first, or going back, the last', () => {
    expect(nextHit(hits, 'c', 0, 1)).toBe(hits[0]);
    expect(nextHit(hits, 'c', 0, -1)).toBe(hits[3]);
    expect(nextHit([], 'a', 0, 1)).toBeUndefined();
  });
});

describe('checkpointForRow', () => {
  const checkpoints = [
    { index: 1, messageId: 'm1', hash: 'a'.repeat(40) },
    { index: 4, messageId: 'm4', hash: 'b'.repeat(40) },
  ];
  it("the row's own checkpoint, else the newest before it, else the first", () => {
    expect(checkpointForRow(checkpoints, 4)).toBe(1);
    expect(checkpointForRow(checkpoints, 3)).toBe(0);
    expect(checkpointForRow(checkpoints, 9)).toBe(1);
    expect(checkpointForRow(checkpoints, 0)).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { formatTime } from './format';

describe('formatTime', () => {
  it('says what toLocaleTimeString says, with one formatter kept for every row', () => {
    const times = [
      '2026-12-01T10:00:00.000Z',
      '2026-12-01T23:59:59Z',
      '1999-01-02T03:04:05.678+02:00',
      '2026-06-30T12:30:00Z',
    ];
    for (const iso of times)
      expect(formatTime(iso)).toBe(
        new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' }),
      );
    expect(formatTime('not a time')).toBe('');
  });
});

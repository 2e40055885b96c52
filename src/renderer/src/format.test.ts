import { describe, expect, it } from 'vitest';
import { formatDateTime, formatTime, formatWhen, warmDateFormats } from './format';

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

  it('the list and message dates say what toLocaleString says; a malformed one is empty, or itself in the message', () => {
    warmDateFormats();
    for (const iso of ['2026-12-01T10:00:00.000Z', '1999-01-02T03:04:05.678+02:00']) {
      expect(formatWhen(iso)).toBe(
        new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
      );
      expect(formatDateTime(iso)).toBe(
        new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }),
      );
    }
    expect(formatWhen('never')).toBe('');
    expect(formatDateTime('never')).toBe('never');
  });
});

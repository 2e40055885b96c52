/** Pure pieces of the review UI: reconnect backoff, a failed restore's words. */
import { describe, expect, it } from 'vitest';
import { describeFailedRestore } from './store/describe';
import { isConnectionError, retryDelay } from './wsClient';
import type { RecoveryReport } from '../../shared/model';

describe('reconnect backoff', () => {
  it('doubles from 250 ms and stays at 5 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map(retryDelay)).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('knows its own connection errors from the engine’s', () => {
    expect(isConnectionError({ message: 'lost the connection to retrace serve' })).toBe(true);
    expect(isConnectionError({ message: 'cannot connect to retrace serve (is it still running?)' })).toBe(true);
    expect(isConnectionError({ message: 'the workspace folder no longer exists' })).toBe(false);
  });
});

describe('a failed restore', () => {
  const since = '2026-12-01T10:00:00.000Z';
  const error = { code: 'E_UNREADABLE' as const, message: "EACCES: permission denied, open 'src/a.ts'" };
  const report = (ts: string, kind: RecoveryReport['kind'] = 'restore-rolled-back'): RecoveryReport => ({
    ts,
    kind,
    detail: 'restore r1 (code to abc1234) failed; rolled back: 2 of 2 file(s) put back',
  });

  it('keeps its code and says it was rolled back when the engine logged a roll-back since it began', () => {
    const out = describeFailedRestore(error, [report('2026-12-01T10:00:01.000Z')], since);
    expect(out.code).toBe('E_UNREADABLE');
    expect(out.message).toMatch(/^Restore failed and was rolled back/);
    expect(out.message).toContain('EACCES');
  });

  it('does not claim a roll-back from an older report or another kind of repair', () => {
    for (const reports of [
      [report('2026-12-01T09:59:59.000Z')],
      [report('2026-12-01T10:00:01.000Z', 'stale-lock-removed')],
      [],
    ]) {
      const out = describeFailedRestore(error, reports, since);
      expect(out.code).toBe('E_UNREADABLE');
      expect(out.message).toMatch(/^Restore failed: EACCES/);
    }
  });
});

import type { RecoveryReport } from '../../../shared/model';

/** One line of `retrace status`'s "recovered" list. */
export function report(kind: RecoveryReport['kind'], detail: string): RecoveryReport {
  return { ts: new Date().toISOString(), kind, detail };
}

/** The session list says which sessions were pulled, and who recorded them (sessions/pulled.ts). */
import type { SessionSummary } from '../../../shared/model';
import { describeRecorder, readPulled } from '../sessions/pulled';

export function withPulledInfo(wsDir: string, list: SessionSummary[]): SessionSummary[] {
  const pulled = readPulled(wsDir);
  return list.map((s) => {
    const p = pulled[s.id];
    return p ? { ...s, readOnly: true as const, recordedBy: describeRecorder(p.recordedBy) } : s;
  });
}

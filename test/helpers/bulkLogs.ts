/**
 * Session logs in the log format (docs/formats.md), written straight to disk: for measuring reads over many
 * long sessions (the engine's write path would spend minutes on fsyncs to build 200,000 lines). Used by the
 * follow test and the bench's live-follow row, so both measure the same logs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const bulkSessionId = (i: number): string => `s-20250101-${String(i).padStart(4, '0')}`;
const ts = (n: number): string => new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString();

/** Message `n` of session `session`: alternating roles, every fifth carries a (made-up) checkpoint hash. */
export function bulkMessageLine(session: number, n: number): string {
  return JSON.stringify({
    type: 'message',
    id: `m_${session}_${n}`,
    ts: ts(n),
    role: n % 2 === 0 ? 'user' : 'assistant',
    text: `message ${n} of session ${session}: ${'some words of a conversation '.repeat(4)}`,
    ...(n % 5 === 4 ? { hash: (session * 100000 + n).toString(16).padStart(40, '0') } : {}),
  });
}

/** <dir>/<session id>.jsonl with a header and `messages` messages. */
export function writeBulkSession(dir: string, session: number, messages: number): void {
  const header = { type: 'session', v: 1, id: bulkSessionId(session), title: '', source: 'cli', createdAt: ts(0) };
  const lines = [JSON.stringify(header)];
  for (let n = 0; n < messages; n++) lines.push(bulkMessageLine(session, n));
  writeFileSync(join(dir, `${bulkSessionId(session)}.jsonl`), lines.join('\n') + '\n');
}

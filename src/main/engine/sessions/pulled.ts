/**
 * Sessions pulled from a git remote (`retrace pull`): <ws.dir>/pulled.json names them, with who recorded them and
 * the log commit they came from. Their logs sit beside the workspace's own (sessions/<id>.jsonl), so every reader
 * shows them; every writer of a conversation asks `assertWritable` first. Code restores from them are fine.
 */
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { writeFilePrivateSync } from '../privateFs';

/** Who recorded a session, as the pusher's git config (or account and host) said at push time. */
export interface RecordedBy {
  name: string | null;
  email: string | null;
  host: string;
}

export interface PulledSession {
  remote: string;
  recordedBy: RecordedBy;
  /** The log commit (refs/retrace/logs/<id>) the local log was written from. */
  log: string;
  pulledAt: string;
}

const file = (wsDir: string): string => join(wsDir, 'pulled.json');

export function readPulled(wsDir: string): Record<string, PulledSession> {
  try {
    const data = JSON.parse(readFileSync(file(wsDir), 'utf8')) as unknown;
    return data && typeof data === 'object' ? (data as Record<string, PulledSession>) : {};
  } catch {
    return {}; // none pulled yet (or a damaged list: the sessions read as the workspace's own)
  }
}

/** The caller holds the writer lock. Written whole, then renamed: readers see the old list or the new one. */
export function writePulled(wsDir: string, list: Record<string, PulledSession>): void {
  const tmp = `${file(wsDir)}.${process.pid}.tmp`;
  writeFilePrivateSync(tmp, JSON.stringify(list, null, 2) + '\n');
  renameSync(tmp, file(wsDir));
}

export function isPulled(wsDir: string, session: string): boolean {
  return Object.prototype.hasOwnProperty.call(readPulled(wsDir), session);
}

/** E_READ_ONLY for a pulled session: its conversation is someone else's record. */
export function assertWritable(wsDir: string, session: string): void {
  const p = readPulled(wsDir)[session];
  if (!p) return;
  throw new RetraceError(
    'E_READ_ONLY',
    `session ${session} was pulled from ${p.remote} (recorded by ${describeRecorder(p.recordedBy)}): it is read-only; restore its code with --code`,
  );
}

export function describeRecorder(r: RecordedBy): string {
  if (r.name && r.email) return `${r.name} <${r.email}>`;
  return r.name ?? r.email ?? r.host;
}

/** Identifiers of sessions, messages and restores. */
import { randomBytes } from 'node:crypto';
import { RetraceError } from '../../../shared/errors';

const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * A session id is also a file name and a git ref component, so on top of the contract's character set it
 * may not start with '.', contain '..', or end in '.' or '.lock' (git refuses such ref names).
 */
export function isValidSessionId(id: string): boolean {
  return SESSION_ID.test(id) && !id.startsWith('.') && !id.includes('..') && !id.endsWith('.') && !id.endsWith('.lock');
}

export function assertSessionId(id: string): string {
  if (!isValidSessionId(id)) {
    throw new RetraceError(
      'E_INVALID_INPUT',
      `not a valid session id: ${JSON.stringify(id)} (letters, digits, '.', '_', '-'; at most 128)`,
    );
  }
  return id;
}

function rand(n: number): string {
  // base36 of random bytes, fixed length
  return [...randomBytes(n)].map((b) => (b % 36).toString(36)).join('');
}

/** `m_<time36><rand>`: the '_' and the letters past 'f' keep it from ever looking like a hash prefix. */
export function newMessageId(now = Date.now()): string {
  return `m_${now.toString(36)}${rand(6)}`;
}

/** A readable default session id: `s-20250102-153045-x7k2`. */
export function newSessionId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const d = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `s-${d}-${rand(4)}`;
}

/** Restore ids: `r_<time36><rand>` (never hex-only either). */
export function newRestoreId(now = Date.now()): string {
  return `r_${now.toString(36)}${rand(6)}`;
}

export function sessionRef(sessionId: string): string {
  return `refs/retrace/sessions/${sessionId}`;
}

export function safetyRef(restoreId: string): string {
  return `refs/retrace/safety/${restoreId}`;
}

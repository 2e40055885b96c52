/**
 * Who may talk to `retrace serve`: requests that carry the token, addressed to the loopback origin we serve.
 * The Host check defeats DNS rebinding; the Origin check defeats other sites' pages; the token defeats other
 * local users and processes that can reach the port.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { dirname } from 'node:path';
import { openPrivateHome, writeFilePrivateSync } from '../engine/privateFs';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The token kept in `file` (readable by its owner only), made on first use: a `retrace serve` restarted on the
 * same port keeps its URL, so the tabs left open reconnect instead of being locked out.
 */
export function persistentToken(file: string): string {
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (/^[A-Za-z0-9_-]{32,}$/.test(kept)) return kept;
  } catch {
    // absent or unreadable: make a new one
  }
  const token = newToken();
  openPrivateHome(dirname(file)); // the data home: a first `retrace serve` may be what creates it
  writeFilePrivateSync(file, token + '\n');
  return token;
}

export function tokensEqual(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  // timingSafeEqual needs equal lengths; comparing against itself keeps the time independent of `given`.
  if (a.length !== b.length) {
    timingSafeEqual(b, b);
    return false;
  }
  return timingSafeEqual(a, b);
}

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((h) => `http://${h}`);
}

/** null when acceptable, else the reason for a 403. */
export function checkHostAndOrigin(headers: IncomingHttpHeaders, port: number): string | null {
  const host = headers.host?.toLowerCase();
  if (!host || !allowedHosts(port).includes(host)) return 'foreign Host header';
  const origin = headers.origin;
  if (origin !== undefined && !allowedOrigins(port).includes(origin.toLowerCase())) return 'foreign Origin header';
  return null;
}

/**
 * Split a request path of the form `/<token>/rest` into token and rest. The token lives in the path (not only
 * the query) so that every relative asset URL the page loads carries it too.
 */
export function splitTokenPath(pathname: string): { token: string; rest: string } | null {
  const m = /^\/([A-Za-z0-9_-]+)(\/.*)?$/.exec(pathname);
  if (!m) return null;
  return { token: m[1]!, rest: m[2] ?? '' };
}

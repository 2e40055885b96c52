/** A hook payload (one JSON object on stdin) read into a plain object, or a one-line E_INVALID_INPUT. */
import { RetraceError } from '../../../shared/errors';

export type Payload = Record<string, unknown>;

export function parseHookPayload(text: string): Payload {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new RetraceError(
      'E_INVALID_INPUT',
      `the hook payload is not JSON (${(e as Error).message}): ${text.slice(0, 80)}`,
    );
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new RetraceError('E_INVALID_INPUT', 'the hook payload is not a JSON object');
  return v as Payload;
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const obj = (v: unknown): Payload | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Payload) : undefined;

/** A command on one line, cut to `max` characters, for a message text. */
export function oneLine(s: string, max = 200): string {
  const first = s.trim().split('\n')[0]!.trim();
  const cut = first.length > max ? `${first.slice(0, max - 1)}…` : first;
  return s.trim().includes('\n') && cut === first ? `${cut} …` : cut;
}

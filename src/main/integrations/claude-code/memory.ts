/**
 * Keeping a large import's peak memory near what it keeps: reading a transcript parses every line whole and
 * keeps a slim copy (slim.ts), so most of what it allocates — whole lines, file texts converted to bytes — is
 * garbage at once, in V8's old space, which it collects late. A full collection every few megabytes read
 * bounds the peak to what is kept plus one such stretch. Costs a few tens of milliseconds per collection.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

function collector(): (() => void) | null {
  if (gc !== undefined) return gc;
  try {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  } catch {
    gc = null; // an engine without it: memory is then only what V8 decides
  }
  return gc;
}

/** A callback for bytes read: collects garbage each time another `every` bytes have been read. */
export function collectEvery(every: number): (bytesRead: number) => void {
  let next = every;
  return (bytesRead) => {
    if (bytesRead < next) return;
    next = bytesRead + every;
    collector()?.();
  };
}

/** Collect now (before a step that builds much on top of what is kept). */
export function collectNow(): void {
  collector()?.();
}

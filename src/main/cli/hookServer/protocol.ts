/**
 * One request, one answer per connection, each a single line of JSON. The request carries everything the
 * hook takes from its process (argv, stdin, cwd, env, umask), so the server can run the command as the
 * caller would.
 */

/** Baked in by scripts/build-cli.mjs, the same in both bundles of one build; "dev" when run from source. */
declare const __RETRACE_BUILD_ID__: string | undefined;
export const BUILD_ID: string = typeof __RETRACE_BUILD_ID__ === 'string' ? __RETRACE_BUILD_ID__ : 'dev';

export interface HookRequest {
  /** The client's build: a server of another build declines, exits, and the client runs the hook itself. */
  build: string;
  dataHome: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Files the hook creates get the caller's permissions. */
  umask?: number;
  stdin: string;
}

export type HookAnswer =
  | { status: 'ok'; code: number; stdout: string; stderr: string }
  /** The client runs the hook in-process (and starts a fresh server). */
  | { status: 'declined'; reason: string };

/** Requests carry whole hook payloads (a Write's file content): bound them generously. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/** Collects bytes until the first newline; calls `done` once with the line, or with null when it is too long. */
export function lineReader(done: (line: string | null) => void): (chunk: Buffer) => void {
  const parts: Buffer[] = [];
  let size = 0;
  let finished = false;
  return (chunk) => {
    if (finished) return;
    const nl = chunk.indexOf(10);
    parts.push(nl < 0 ? chunk : chunk.subarray(0, nl));
    size += chunk.length;
    if (nl >= 0 || size > MAX_LINE_BYTES) {
      finished = true;
      done(nl >= 0 ? Buffer.concat(parts).toString('utf8') : null);
    }
  };
}

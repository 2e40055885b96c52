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
  /** Only the allow-listed variables (forwardedEnv): never the caller's secrets. */
  env: Record<string, string>;
  /** Files the hook creates get the caller's permissions. */
  umask?: number;
  stdin: string;
}

/**
 * The only environment variables a request carries, and the only ones a server is started with: what the
 * hook path reads (RETRACE_*, the agents' config dirs, the data home (HOME, XDG_*, APPDATA), PATH for git,
 * the temp dir, the locale, colour) and what a child process needs on Windows. An agent's environment holds
 * API keys and tokens; they must never travel over the socket nor live on in the resident server.
 */
const FORWARDED_ENV_NAMES = new Set([
  'HOME',
  'PATH',
  'TMPDIR',
  'TMP',
  'TEMP',
  'LANG',
  'LANGUAGE',
  'TZ',
  'NO_COLOR',
  'FORCE_COLOR',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'SYSTEMROOT',
  'PATHEXT',
  'COMSPEC',
]);
const FORWARDED_ENV_PREFIXES = ['RETRACE_', 'XDG_', 'LC_'];
/** The agents' own settings: only where their files are, never their credentials. */
const AGENT_CONFIG = /^(CLAUDE|CODEX|GEMINI)_[A-Z0-9_]*(DIR|HOME)$/;

export function isForwardedEnv(name: string): boolean {
  const upper = name.toUpperCase(); // Windows names are case-insensitive (Path, SystemRoot)
  return (
    FORWARDED_ENV_NAMES.has(upper) ||
    FORWARDED_ENV_PREFIXES.some((p) => upper.startsWith(p)) ||
    AGENT_CONFIG.test(upper)
  );
}

/** `env` reduced to the allow-list above. */
export function forwardedEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && isForwardedEnv(k)) out[k] = v;
  return out;
}

export type HookAnswer =
  | { status: 'ok'; code: number; stdout: string; stderr: string }
  /** The client runs the hook in-process (and starts a fresh server). */
  | { status: 'declined'; reason: string };

/**
 * Whether a line the client read is an answer it can act on: an exit code and both outputs to print as the
 * CLI would, or a refusal. Anything else (another version's shape, a broken server) and the client runs the
 * hook itself rather than exit with a code or print output no CLI would.
 */
export function isHookAnswer(v: unknown): v is HookAnswer {
  if (!v || typeof v !== 'object') return false;
  const a = v as Record<string, unknown>;
  if (a.status === 'declined') return typeof a.reason === 'string';
  return (
    a.status === 'ok' &&
    Number.isInteger(a.code) &&
    (a.code as number) >= 0 &&
    (a.code as number) <= 255 &&
    typeof a.stdout === 'string' &&
    typeof a.stderr === 'string'
  );
}

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

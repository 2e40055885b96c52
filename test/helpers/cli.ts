/**
 * Run the real `retrace` CLI (bin/retrace.js → the bundle built by test/global-setup.ts) as a child process.
 * Every run gets an explicit RETRACE_HOME: tests never touch ~/.config/retrace.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_BIN = fileURLToPath(new URL('../../bin/retrace.js', import.meta.url));

export interface CliOptions {
  /** The data directory (RETRACE_HOME). Required. */
  home: string;
  /** Process working directory (the workspace when --cwd is not given). */
  cwd?: string;
  /** Extra environment; `undefined` values remove a variable. */
  env?: Record<string, string | undefined>;
  /** Replace PATH entirely (e.g. to hide git). */
  path?: string;
  input?: string | Buffer;
  timeoutMs?: number;
  /** Run as another user (uid/gid), via setpriv. Used where root would bypass permissions. */
  asUser?: { uid: number; gid: number };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is one document, else undefined. */
  json: unknown;
  ms: number;
}

export function cliEnv(opts: CliOptions): NodeJS.ProcessEnv {
  if (!opts.home) throw new Error('runCli: a RETRACE_HOME is required');
  const env: NodeJS.ProcessEnv = { ...process.env, RETRACE_HOME: opts.home, NO_COLOR: '1' };
  // A fault left in the parent's environment must never leak into an unrelated run.
  delete env.RETRACE_FAULT;
  delete env.RETRACE_TEST_FAULTS;
  if (opts.path !== undefined) env.PATH = opts.path;
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Start the CLI; `done` resolves when it exits (never rejects). */
export function spawnCli(args: string[], opts: CliOptions): { child: ChildProcess; done: Promise<CliResult> } {
  const started = Date.now();
  const [cmd, argv] = opts.asUser
    ? [
        'setpriv',
        [
          `--reuid=${opts.asUser.uid}`,
          `--regid=${opts.asUser.gid}`,
          '--clear-groups',
          process.execPath,
          CLI_BIN,
          ...args,
        ],
      ]
    : [process.execPath, [CLI_BIN, ...args]];
  const child = spawn(cmd, argv, { cwd: opts.cwd ?? REPO_ROOT, env: cliEnv(opts), stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b: Buffer) => err.push(b));
  child.stdin!.on('error', () => {}); // the child may exit before reading stdin
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  else child.stdin!.end();
  let timer: NodeJS.Timeout | undefined;
  if (opts.timeoutMs) timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
  const done = new Promise<CliResult>((resolve) => {
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (timer) clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      resolve({
        code,
        signal,
        stdout,
        stderr: Buffer.concat(err).toString('utf8'),
        json: parseJson(stdout),
        ms: Date.now() - started,
      });
    };
    child.on('error', (e) => {
      err.push(Buffer.from(String(e)));
      finish(null, null);
    });
    child.on('close', finish);
  });
  return { child, done };
}

export function runCli(args: string[], opts: CliOptions): Promise<CliResult> {
  return spawnCli(args, { timeoutMs: 60_000, ...opts }).done;
}

/** Run with --json and return the document, throwing a readable error on a non-zero exit. */
export async function cliJson<T = Record<string, unknown>>(args: string[], opts: CliOptions): Promise<T> {
  const r = await runCli([...args, '--json'], opts);
  if (r.code !== 0 || r.json === undefined) {
    throw new Error(`retrace ${args.join(' ')} exited ${r.code ?? r.signal}: ${r.stderr.trim() || r.stdout.trim()}`);
  }
  return r.json as T;
}

/** The `{error: {code}}` of a failed --json run, or undefined. */
export function errorCode(r: CliResult): string | undefined {
  const j = r.json as { error?: { code?: string } } | undefined;
  return j?.error?.code;
}

function parseJson(s: string): unknown {
  const t = s.trim();
  if (t === '') return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/**
 * Wait until no detached `retrace maintenance` started for this data folder is running. One recorded checkpoint
 * in fifty schedules one (engine/maintenance.ts); it starts before the checkpoint's CLI exits and writes to the
 * data folder afterwards (a marker, a storage figure, packs). A test that compares the data folder before and
 * after a later command waits for it first, else it sees that run's writes (CI saw 1 run in ~50). Linux /proc.
 */
export async function maintenanceSettled(home: string, limitMs = 30_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (maintenanceRunning(home)) {
    if (Date.now() > until) throw new Error(`a background maintenance of ${home} still runs after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function maintenanceRunning(home: string): boolean {
  const env = Buffer.from(`\0RETRACE_HOME=${home}\0`);
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[1] !== CLI_BIN || !argv.includes('maintenance')) continue;
      if (Buffer.concat([Buffer.from('\0'), readFileSync(`/proc/${pid}/environ`)]).includes(env)) return true;
    } catch {
      // It exited while we looked.
    }
  }
  return false;
}

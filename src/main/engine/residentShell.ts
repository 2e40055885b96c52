/**
 * Programs (git, `sync -f`) started by a small resident shell instead of by this process (issue 15). On Linux,
 * Node's spawn() forks the whole Node process (libuv 1.46) and blocks the event loop until the child has exec'd,
 * a cost that grows with Node's memory: measured here 1.6 ms at 50 MB resident, 13 ms at 150 MB, 27 ms at 360 MB —
 * for every git process, several per checkpoint and per restore. The shell is a few hundred KB: its fork costs a
 * millisecond whatever Node's size. Written by hand because no library starts processes from a helper process.
 *
 * Protocol: Node writes a script per request into a private folder — every word single-quoted, so no byte of a
 * path or a value is interpreted — and sends its path as one line. The script enters the working folder, gives
 * the program the caller's whole environment (scriptEnv), says "r" in a line and execs the program with stdin,
 * stdout and stderr redirected to files beside it; the shell answers the exit status in a line. A status without
 * the "r" before it says nothing ran (the folder could not be entered, a variable not set): the caller starts the
 * program itself, so that the error is the one it always was.
 *
 * A pool of shells, each running one request at a time (a slow git never holds up a quick one; two walks of a
 * full scan run side by side); past MAX_SHELLS the caller starts its own. Like the resident git readers, a shell
 * keeps Node alive only while it runs something, and stops after IDLE_CLOSE_MS idle. Linux only: elsewhere libuv
 * uses posix_spawn (macOS: no fork of Node) or there is no sh (Windows). RETRACE_RESIDENT_SHELL=0 turns it off.
 * Differences from a direct start, both harmless to callers: a program killed by a signal exits 128+n (not null),
 * and its output is collected from a file once it has exited (no caller here streams).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  accessSync,
  constants,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pidAlive } from './pidAlive';
import { holdEventLoop } from './residentProcess';

const IDLE_CLOSE_MS = 30_000;
/** Shells kept at once: a repository's runner runs at most two git processes at a time (a full scan's walks). */
const MAX_SHELLS = 4;

/**
 * Reads one script path per line and runs it in a subshell (so its `exec` replaces the subshell, not the loop),
 * with fd 3 on the loop's stdout for the "r" said right before the exec; then answers the exit status.
 */
const LOOP = 'while IFS= read -r f; do ( . "$f" ) 3>&1; echo "$?"; done';

export interface ShellRun {
  /** The folder the program runs in. */
  cwd: string;
  /** Its whole environment (nothing of the shell's own reaches it). */
  env: NodeJS.ProcessEnv;
  stdin?: Buffer | string;
}

export interface ShellResult {
  code: number;
  stdout: Buffer;
  stderr: Buffer;
}

/**
 * Run `program` with `args` through a resident shell. Null when that cannot be done and nothing ran (off, not
 * Linux, the program or the folder not found, a word holding a NUL, no shell free): the caller starts it itself.
 * Rejects only when the shell died while the program may have run.
 */
export async function runResident(
  program: string,
  args: readonly string[],
  run: ShellRun,
): Promise<ShellResult | null> {
  if (process.platform !== 'linux' || process.env.RETRACE_RESIDENT_SHELL === '0') return null;
  const exe = findProgram(program, run.env.PATH ?? '');
  const words = envWords(run.env);
  if (!exe || !words || [run.cwd, ...args].some((w) => w.includes('\0'))) return null;
  const shell = pool.acquire();
  if (!shell) return null;
  return shell.run(exe, args, words, run).finally(() => pool.release(shell));
}

/**
 * The script's lines that give the program exactly the caller's environment, nothing of the shell's own, and
 * the words before the program on its exec line. Where /bin/sh is dash and every name is one a shell variable
 * can have: dash's own builtins (unset what the subshell has — PATH, and PWD and OLDPWD, which its cd sets —
 * then export the caller's variables), so that the exec starts the program itself. Otherwise `env -i NAME=value…
 * program`: a second exec, 0.6–1 ms per program here, and a restore starts up to nine. Not for bash, which adds
 * `_` and SHLVL to every program's environment, nor for BusyBox's sh, whose exports are not checked here. A name
 * that export refuses after all ends the subshell before its "r": nothing ran, and the caller starts it itself.
 */
function scriptEnv(words: readonly string[]): { lines: string; prefix: string } {
  if (shellIsDash() && words.every((w) => SHELL_NAME.test(w.slice(0, w.indexOf('='))))) {
    const exports = words.length > 0 ? `export ${words.map(quote).join(' ')}\n` : '';
    return { lines: `unset PATH PWD OLDPWD\n${exports}`, prefix: '' };
  }
  return { lines: '', prefix: `env -i ${words.map(quote).join(' ')} ` };
}

const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

let dash: boolean | undefined;

function shellIsDash(): boolean {
  if (process.env.RETRACE_SHELL_ENV === 'env') return false; // the `env -i` path, for its tests
  try {
    dash ??= path.basename(realpathSync('/bin/sh')) === 'dash';
  } catch {
    dash = false;
  }
  return dash;
}

/** `NAME=value` words; null when a name could be taken for an option or is not a name. */
function envWords(env: NodeJS.ProcessEnv): string[] | null {
  const words: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (k === '' || k.startsWith('-') || k.includes('=') || k.includes('\0') || v.includes('\0')) return null;
    words.push(`${k}=${v}`);
  }
  return words;
}

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

const programs = new Map<string, string | null>();

/**
 * The absolute path `program` resolves to on `searchPath`, as spawn would find it; null when it is nowhere.
 * Remembered per search path: asked once per process for each program.
 */
export function findProgram(program: string, searchPath: string): string | null {
  const key = `${program}\0${searchPath}`;
  let found = programs.get(key);
  if (found === undefined) {
    found = null;
    for (const dir of searchPath.split(path.delimiter)) {
      if (!dir || !path.isAbsolute(dir)) continue;
      try {
        accessSync(path.join(dir, program), constants.X_OK);
        found = path.join(dir, program);
        break;
      } catch {
        // not here
      }
    }
    programs.set(key, found);
  }
  return found;
}

let requestsDir: string | null = null;
let requestCount = 0;

/** Request folders are named after their process: `retrace-run-<pid>-<random>`. */
const FOLDER_PREFIX = 'retrace-run-';
const LEFT_FOLDER = new RegExp(`^${FOLDER_PREFIX}(\\d+)-`);

/**
 * The private folder of request scripts and their output (0700, mkdtemp), made once per process and removed when
 * it exits. Folders left by processes that were killed (their output may be large: blob contents) are removed
 * first, those of live processes never.
 */
function requestFolder(): string | null {
  if (requestsDir) return requestsDir;
  try {
    if (os.tmpdir().includes('\n')) return null; // a request line could not say where its script is
    dropLeftFolders();
    const dir = mkdtempSync(path.join(os.tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    requestsDir = dir;
  } catch {
    return null;
  }
  return requestsDir;
}

function dropLeftFolders(): void {
  const uid = process.getuid?.();
  for (const name of readdirSync(os.tmpdir())) {
    const pid = Number(LEFT_FOLDER.exec(name)?.[1]);
    if (!pid || pid === process.pid || pidAlive(pid)) continue;
    const dir = path.join(os.tmpdir(), name);
    try {
      if (lstatSync(dir).uid === uid) rmSync(dir, { recursive: true, force: true });
    } catch {
      // another process dropped it first, or it is not ours to drop
    }
  }
}

class ResidentShell {
  private child: ChildProcessWithoutNullStreams | null = null;
  private idle: NodeJS.Timeout | null = null;
  private out = '';
  /** Takes each line the shell answers; an Error when it died meanwhile, null when it never started. */
  private answer: ((line: string | Error | null) => void) | null = null;

  async run(exe: string, args: readonly string[], env: string[], run: ShellRun): Promise<ShellResult | null> {
    const dir = requestFolder();
    const child = dir ? this.current() : null;
    if (!dir || !child) return null;
    const base = path.join(dir, String(++requestCount));
    const files = { script: `${base}.sh`, in: `${base}.in`, out: `${base}.out`, err: `${base}.err` };
    try {
      if (run.stdin !== undefined) writeFileSync(files.in, run.stdin, { mode: 0o600 });
      const stdin = run.stdin !== undefined ? files.in : '/dev/null';
      const given = scriptEnv(env);
      writeFileSync(
        files.script,
        `cd -- ${quote(run.cwd)} 2>/dev/null || exit 1\n${given.lines}echo r >&3\n` +
          `exec 3>&- ${given.prefix}${[exe, ...args].map(quote).join(' ')}` +
          ` <${quote(stdin)} >${quote(files.out)} 2>${quote(files.err)}\n`,
        { mode: 0o600 },
      );
    } catch {
      removeAll(files);
      requestsDir = null; // taken away (a cleaner of the temporary folder) or full: the next call makes another
      return null; // and this one starts its program directly
    }
    try {
      const line = await this.request(child, files.script);
      if (line === null) return null; // nothing ran
      const stdout = readIfThere(files.out);
      const stderr = readIfThere(files.err);
      // No output file: the script never reached its redirections (it was taken away), so nothing ran.
      if (!stdout || !stderr) return null;
      return { code: Number(line), stdout, stderr };
    } finally {
      removeAll(files);
    }
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.child?.stdin.end();
    this.child = null;
  }

  /** Ready for another request: idle for IDLE_CLOSE_MS, it stops. */
  released(onClosed: () => void): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.close();
      onClosed();
    }, IDLE_CLOSE_MS);
    this.idle.unref();
  }

  /** The status line of one script (null when no "r" came before it); rejects when the shell went away meanwhile. */
  private request(child: ChildProcessWithoutNullStreams, script: string): Promise<string | null> {
    if (this.idle) clearTimeout(this.idle);
    let started = false;
    return new Promise<string | null>((resolve, reject) => {
      holdEventLoop(child, true);
      this.answer = (line) => {
        if (line instanceof Error) return reject(line);
        if (line === 'r') {
          started = true;
          return;
        }
        this.answer = null;
        holdEventLoop(child, false);
        resolve(started ? line : null);
      };
      child.stdin.write(script + '\n');
    });
  }

  private current(): ChildProcessWithoutNullStreams | null {
    if (this.child) return this.child;
    let child: ChildProcessWithoutNullStreams;
    try {
      // Only PATH: each script sets its program's whole environment with `env -i`.
      child = spawn('/bin/sh', ['-c', LOOP], { stdio: ['pipe', 'pipe', 'pipe'], cwd: '/', env: pathOnly() });
    } catch {
      return null;
    }
    this.child = child;
    this.out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (s: string) => this.onData(s));
    child.stderr.resume();
    child.stdin.on('error', () => {}); // the exit below says what happened
    let started = false;
    child.once('spawn', () => (started = true));
    const gone = (): void => {
      if (this.child === child) this.child = null;
      // A shell that never started ran nothing: the caller may start the program itself.
      this.answer?.(started ? new Error('the resident shell running the program exited') : null);
      this.answer = null;
    };
    child.on('error', gone);
    child.on('close', gone);
    holdEventLoop(child, false);
    return child;
  }

  private onData(s: string): void {
    this.out += s;
    for (let nl = this.out.indexOf('\n'); nl >= 0; nl = this.out.indexOf('\n')) {
      const line = this.out.slice(0, nl);
      this.out = this.out.slice(nl + 1);
      this.answer?.(line);
    }
  }
}

function pathOnly(): NodeJS.ProcessEnv {
  return process.env.PATH !== undefined ? { PATH: process.env.PATH } : {};
}

function readIfThere(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

function removeAll(files: Record<string, string>): void {
  for (const f of Object.values(files))
    try {
      unlinkSync(f);
    } catch {
      // not written
    }
}

class ShellPool {
  private readonly idle: ResidentShell[] = [];
  private count = 0;

  acquire(): ResidentShell | null {
    const shell = this.idle.pop();
    if (shell) return shell;
    if (this.count >= MAX_SHELLS) return null;
    this.count++;
    return new ResidentShell();
  }

  release(shell: ResidentShell): void {
    this.idle.push(shell);
    shell.released(() => {
      const i = this.idle.indexOf(shell);
      if (i >= 0) {
        this.idle.splice(i, 1);
        this.count--;
      }
    });
  }
}

const pool = new ShellPool();

/**
 * The hook's fast path (bundled alone, as CommonJS, into out/cli/hook-client.cjs; bin/retrace.js hands it
 * `hook …`): Node's own start-up is most of a hook call's budget, so this file loads only node: built-ins and
 * the pure data-home module (and not even the ESM loader), sends the call to the resident hook server
 * (./server.ts) and prints its answer.
 *
 * The hook must never fail or block the agent: no server, a server of another build, or any error → the
 * full CLI runs the hook in this process exactly as before, and a server is started for the next call.
 * RETRACE_HOOK_SERVER=0 turns all of this off; so does fault injection (it must kill the process doing the work).
 */
import { readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { isatty } from 'node:tty';
import { pathToFileURL } from 'node:url';
import { resolveDataHome } from '../../engine/dataHome';
import { SERVER_DOWN_ENV, serverDownSince } from './gap';
import { pidAlive } from '../../engine/pidAlive';
import { hookServerPaths, isPrivateDir, socketPathFits, type HookServerPaths } from './paths';
import { BUILD_ID, forwardedEnv, isHookAnswer, lineReader, type HookAnswer, type HookRequest } from './protocol';

/** A server that does not accept within this is treated as absent. */
const CONNECT_TIMEOUT_MS = 200;
/** A pid file this young with no socket yet: a server is starting; do not start another. */
const STARTING_GRACE_MS = 5_000;
/** After a server could not start (see server.ts), calls run in-process without trying again for this long. */
const FAILED_START_BACKOFF_MS = 10 * 60_000;

/** Where this installation's files are (bin/retrace.js knows). */
export interface Install {
  /** bin/retrace.js: started as `hook-server`. */
  bin: string;
  /** out/cli/retrace.js, the full CLI (ESM). */
  cli: string;
}

/** Run `retrace hook …` (argv without the program); returns the exit code. */
export async function hookClient(argv: string[], install: Install): Promise<number> {
  const stdin = await readStdin();
  const target = serverTarget(argv);
  if (target) {
    try {
      if (target.paths.socketDir && !isPrivateDir(target.paths.socketDir)) throw new Error('no private socket folder');
      const answer = await ask(target.paths, request(argv, target.dataHome, stdin));
      if (answer.status === 'ok') {
        if (answer.stdout) process.stdout.write(answer.stdout);
        if (answer.stderr) process.stderr.write(answer.stderr);
        return answer.code;
      }
    } catch (e) {
      // No server (or it broke off): run it here. A server that broke off after taking the call may have
      // recorded it already: the hook then checks before recording it again.
      if (e instanceof BrokenOff) process.env.RETRACE_HOOK_RETRY = '1';
    }
    const downSince = serverDownSince(target.paths);
    await startServer(install.bin, target.paths, target.dataHome);
    // For this call only (the server just started got the environment without it): see ./gap.ts.
    if (downSince) process.env[SERVER_DOWN_ENV] = downSince;
  }
  return inProcess(install.cli, argv, stdin);
}

/** The server for this call, or null when the call must run in-process. */
function serverTarget(argv: string[]): { dataHome: string; paths: HookServerPaths } | null {
  const env = process.env;
  if (env.RETRACE_HOOK_SERVER === '0' || env.RETRACE_TEST_FAULTS || env.RETRACE_FAULT) return null;
  // Windows: a named pipe can be created first by any local user, and nothing here can check who serves it
  // (that needs GetNamedPipeServerProcessId plus the owner SID of that process, or a pipe created with a
  // DACL for our SID alone and FILE_FLAG_FIRST_PIPE_INSTANCE; node's net module exposes neither). Unverified
  // means untrusted: run in-process.
  if (process.platform === 'win32') return null;
  const dataDir = simpleHookArgs(argv);
  if (dataDir === false) return null;
  const dataHome = resolveDataHome(dataDir !== undefined ? { dataDir } : {});
  const paths = hookServerPaths(dataHome);
  return socketPathFits(paths) ? { dataHome, paths } : null;
}

/**
 * `hook SOURCE` with at most `--data-dir DIR`: the --data-dir value (or undefined), or false for anything
 * else (--help, --json, usage errors), which the full CLI handles as it always has.
 */
function simpleHookArgs(argv: string[]): string | undefined | false {
  let dataDir: string | undefined;
  let positionals = 0;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--data-dir' && i + 1 < argv.length) dataDir = argv[++i];
    else if (a.startsWith('--data-dir=')) dataDir = a.slice('--data-dir='.length);
    else if (a.startsWith('-')) return false;
    else positionals++;
  }
  return argv[0] === 'hook' && positionals === 1 ? dataDir : false;
}

function request(argv: string[], dataHome: string, stdin: string): HookRequest {
  const env = forwardedEnv(process.env);
  return { build: BUILD_ID, dataHome, argv, cwd: process.cwd(), env, umask: process.umask(), stdin };
}

/** The request was sent, then the connection broke without an answer. */
class BrokenOff extends Error {}

/** Send one request; resolves with the answer, rejects when there is no server or the connection breaks. */
function ask(paths: HookServerPaths, req: HookRequest): Promise<HookAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(paths.socket);
    let sent = false;
    const fail = (e: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(sent ? new BrokenOff(e.message) : e);
    };
    const timer = setTimeout(() => fail(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
    socket.on('connect', () => {
      // Connected: from here the server is working on it, however long a checkpoint takes.
      clearTimeout(timer);
      sent = true;
      socket.write(JSON.stringify(req) + '\n');
    });
    socket.on(
      'data',
      lineReader((line) => {
        socket.destroy();
        try {
          const answer = JSON.parse(line ?? '') as unknown;
          if (!isHookAnswer(answer)) throw new Error('bad answer');
          resolve(answer);
        } catch (e) {
          reject(new BrokenOff((e as Error).message)); // sent, but no usable answer
        }
      }),
    );
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('closed without an answer')));
  });
}

/** Start a server for the next call, detached, unless one is just starting. Never throws. */
async function startServer(bin: string, paths: HookServerPaths, dataHome: string): Promise<void> {
  try {
    if (serverStarting(paths) || recentlyFailed(paths)) return;
    // Loaded only here: a call the server answers does not pay for it.
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [bin, 'hook-server', '--data-dir', dataHome], {
      detached: true,
      stdio: 'ignore',
      cwd: path.parse(dataHome).root,
      // The server outlives this call: it gets the allow-list only, never the agent's keys and tokens.
      env: forwardedEnv(process.env),
      windowsHide: true,
    });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No server this time: the hook still runs in-process.
  }
}

function serverStarting(paths: HookServerPaths): boolean {
  try {
    const st = statSync(paths.pidFile);
    return Date.now() - st.mtimeMs < STARTING_GRACE_MS && pidAlive(Number(readFileSync(paths.pidFile, 'utf8')));
  } catch {
    return false;
  }
}

function recentlyFailed(paths: HookServerPaths): boolean {
  try {
    return Date.now() - statSync(paths.failedFile).mtimeMs < FAILED_START_BACKOFF_MS;
  } catch {
    return false;
  }
}

/** The full CLI, in this process, given the stdin already read. */
async function inProcess(cliPath: string, argv: string[], stdin: string): Promise<number> {
  const cli = (await import(pathToFileURL(cliPath).href)) as {
    main(argv: string[], io?: { stdin?: string }): Promise<number>;
  };
  return cli.main(argv, { stdin });
}

async function readStdin(): Promise<string> {
  // Run by hand in a terminal there is no payload: do not wait for one (as the hook command does).
  if (isatty(0)) return '';
  // One blocking read to the end: process.stdin would first build a stream for fd 0 (~3–5 ms of start-up).
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    // A non-blocking pipe (EAGAIN) is read as a stream; no stdin at all is no payload.
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return '';
  }
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `retrace hook-server`: a resident process that answers `retrace hook …` calls of one data home (sent by
 * ./client.ts), so a call no longer pays for loading the CLI. Each request runs the very same CLI `main` the
 * in-process hook runs, with the caller's argv, stdin, cwd and environment swapped in — hence one request
 * at a time (the engine's file lock already serialises writers across processes).
 *
 * One server per data home: the pid file is created exclusively. The server exits when idle
 * (RETRACE_HOOK_SERVER_IDLE_MS, default 10 min), when its pid file or socket is removed or replaced, when its
 * data home disappears, and after declining a request of another build.
 */
import { chmodSync, existsSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import type http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { PRIVATE_FILE_MODE, writeFilePrivateSync } from '../../engine/privateFs';
import { appendHookLog } from '../commands/hook';
import { keepShadowsOpen } from '../../engine/residentShadows';
import { setMaintenanceScheduler } from '../../engine/maintenance';
import { setWarmRefreshScheduler } from '../../engine/warmBase';
import { markServerStarted, markServerStopped } from './gap';
import { IdleWork } from './idleWork';
import { ensureHttpConfig } from './httpConfig';
import { listenHttpHooks } from './httpHooks';
import { pidAlive } from '../../engine/pidAlive';
import { keepSyncfsHelper } from '../../engine/syncfsHelper';
import { ensurePrivateDir, hookServerPaths, socketPathFits, type HookServerPaths } from './paths';
import { BUILD_ID, forwardedEnv, lineReader, type HookAnswer, type HookRequest } from './protocol';

const DEFAULT_IDLE_MS = 10 * 60_000;
/** A pid file this young belongs to a server still starting (it may not listen yet). */
const STARTING_GRACE_MS = 5_000;

/** Runs until the server exits (it calls process.exit); resolves only when it cannot start. */
export async function runHookServer(dataHome: string): Promise<number> {
  const paths = hookServerPaths(dataHome);
  // A named pipe's clients cannot be verified from node (see client.ts): refuse rather than trust any.
  if (process.platform === 'win32') return cannotStart(dataHome, paths, 'named pipe clients cannot be verified');
  if (!socketPathFits(paths)) return cannotStart(dataHome, paths, `the socket path is too long: ${paths.socket}`);
  for (const dir of [paths.dir, paths.socketDir]) {
    if (dir && !ensurePrivateDir(dir))
      return cannotStart(dataHome, paths, `${dir} is not a private folder of this user`);
  }
  if (!(await claimPidFile(paths))) return 0; // another server has this data home: leave quietly
  keepSyncfsHelper(); // it lives long: its checkpoints' syncs go through a resident helper
  const idle = Number(process.env.RETRACE_HOOK_SERVER_IDLE_MS);
  const server = new HookServer(dataHome, paths, Number.isFinite(idle) && idle > 0 ? idle : DEFAULT_IDLE_MS);
  try {
    await server.listen();
  } catch (e) {
    releaseFile(paths.pidFile, String(process.pid));
    return cannotStart(dataHome, paths, `cannot listen on ${paths.socket}: ${(e as Error).message}`);
  }
  rmSync(paths.failedFile, { force: true });
  markServerStarted(paths);
  return new Promise<number>(() => {});
}

/** Say why in hook.log, and leave a mark so that the next calls do not start a server again in vain. */
function cannotStart(dataHome: string, paths: HookServerPaths, why: string): number {
  appendHookLog(dataHome, `hook-server ${process.pid} cannot start: ${why}`);
  try {
    writeFilePrivateSync(paths.failedFile, `${why}\n`);
  } catch {
    // The folder itself is the problem: each call will try again.
  }
  return 1;
}

class HookServer {
  private readonly net = net.createServer((socket) => this.accept(socket));
  private socketIno = 0;
  private queue: Promise<void> = Promise.resolve();
  /** Requests received and not yet answered. */
  private pending = 0;
  private lastActive = Date.now();
  private closing = false;
  private readonly trace = Boolean(process.env.RETRACE_HOOK_TRACE);
  private http: http.Server | null = null;
  /** The server's own allow-listed environment, which HTTP calls run with (they bring none). */
  private readonly ownEnv = forwardedEnv(process.env);
  /** Between calls: the warm snapshots' periodic full scan, off the calls' path (engine/warmBase.ts). */
  private readonly idleWork = new IdleWork(
    () => this.pending === 0 && !this.closing,
    (key, outcome, ms) => {
      if (this.trace && outcome !== 'not-due')
        appendHookLog(
          this.dataHome,
          `hook-server ${process.pid} background ${outcome === 'done' ? 'run' : `scan ${outcome}`} ${ms.toFixed(0)}ms ${key}`,
        );
    },
  );

  constructor(
    private readonly dataHome: string,
    private readonly paths: HookServerPaths,
    private readonly idleMs: number,
  ) {}

  async listen(): Promise<void> {
    // We own the pid file, so a socket file left here is a dead server's (or one about to notice and exit).
    if (this.paths.socketDir) rmSync(this.paths.socket, { force: true });
    await new Promise<void>((resolve, reject) => {
      this.net.once('error', reject);
      this.net.listen(this.paths.socket, () => resolve());
    });
    this.net.on('error', (e) => this.shutdown(`server error: ${e.message}`));
    if (this.paths.socketDir) {
      // Owner-only like every file of the data home (its folder already keeps others out; the umask made it 0755).
      chmodSync(this.paths.socket, PRIVATE_FILE_MODE);
      this.socketIno = statSync(this.paths.socket).ino;
    }
    const tick = Math.max(50, Math.min(1_000, this.idleMs / 2));
    setInterval(() => this.check(), tick).unref();
    process.on('SIGTERM', () => this.shutdown('SIGTERM'));
    process.on('SIGINT', () => this.shutdown('SIGINT'));
    const crash = (e: unknown): void => {
      appendHookLog(this.dataHome, `hook-server ${process.pid} error: ${e instanceof Error ? e.stack : String(e)}`);
      this.shutdown('crash');
    };
    process.on('uncaughtException', crash);
    process.on('unhandledRejection', crash);
    setWarmRefreshScheduler((ws, refresh) => this.idleWork.note(ws.dir, refresh));
    // Maintenance too waits until no call is pending, instead of starting beside the agent's next call.
    setMaintenanceScheduler((ws, run) => this.idleWork.once(`maintenance ${ws.dir}`, run));
    keepShadowsOpen();
    if (this.trace) appendHookLog(this.dataHome, `hook-server ${process.pid} listening on ${this.paths.socket}`);
    await this.listenHttp();
  }

  /** Claude Code's HTTP hooks (./httpHooks.ts). Without the port, the server still serves its socket. */
  private async listenHttp(): Promise<void> {
    let port = 0;
    try {
      const config = await ensureHttpConfig(this.dataHome);
      port = config.port;
      this.http = await listenHttpHooks(config, {
        accepting: () => !this.closing,
        run: (payload) => this.runQueued(() => runHttpHook(this.dataHome, payload, this.ownEnv)),
      });
      if (this.trace) appendHookLog(this.dataHome, `hook-server ${process.pid} HTTP hooks on 127.0.0.1:${port}`);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const why = err.code === 'EADDRINUSE' ? `127.0.0.1:${port} is in use by another program` : err.message;
      appendHookLog(
        this.dataHome,
        `hook-server ${process.pid} runs without HTTP hooks: ${why} (Claude Code's HTTP hook calls are lost until it is free; \`retrace install claude-code --command\` avoids them)`,
      );
    }
  }

  /** One call at a time, counted as pending so the server neither idles out nor exits under it. */
  private runQueued(work: () => Promise<unknown>): Promise<void> {
    this.pending++;
    const done = this.queue.then(work).then(
      () => undefined,
      () => undefined,
    );
    this.queue = done.finally(() => {
      this.pending--;
      this.lastActive = Date.now();
      if (this.closing && this.pending === 0) setImmediate(() => process.exit(0));
      this.idleWork.soon();
    });
    return done;
  }

  private accept(socket: net.Socket): void {
    socket.on('error', () => {});
    socket.on(
      'data',
      lineReader((line) => {
        let req: HookRequest;
        try {
          req = JSON.parse(line ?? '') as HookRequest;
        } catch {
          socket.destroy();
          return;
        }
        this.pending++;
        const work = async (): Promise<void> => {
          const answer = await this.answer(req).catch((e: unknown): HookAnswer => ({
            status: 'declined',
            reason: `error: ${String(e)}`,
          }));
          let done = false;
          const finish = (): void => {
            if (done) return;
            done = true;
            this.pending--;
            this.lastActive = Date.now();
            if (this.closing && this.pending === 0) process.exit(0);
            this.idleWork.soon();
          };
          socket.once('close', finish);
          socket.end(JSON.stringify(answer) + '\n', finish);
        };
        this.queue = this.queue.then(work).catch(() => {});
      }),
    );
  }

  private async answer(req: HookRequest): Promise<HookAnswer> {
    if (this.closing) return { status: 'declined', reason: 'closing' };
    if (req.build !== BUILD_ID) {
      // The CLI was rebuilt or upgraded: make way for a server of the caller's build.
      this.shutdown(`stale build ${BUILD_ID} (caller: ${req.build})`);
      return { status: 'declined', reason: 'stale build' };
    }
    if (req.dataHome !== this.dataHome) return { status: 'declined', reason: 'another data home' };
    return runAsCaller(req);
  }

  /** Is the server still the one its data home should have? */
  private check(): void {
    if (this.closing) return;
    this.idleWork.soon(); // a workspace whose warm base ages while the model thinks
    if (!existsSync(this.dataHome)) return this.shutdown('data home removed');
    if (!ownsFile(this.paths.pidFile, String(process.pid))) return this.shutdown('pid file removed or replaced');
    if (this.paths.socketDir && inode(this.paths.socket) !== this.socketIno)
      return this.shutdown('socket removed or replaced');
    if (this.pending === 0 && Date.now() - this.lastActive >= this.idleMs) return this.shutdown('idle');
  }

  /** Stop taking requests, give the data home back at once, exit when the last answer is out. */
  private shutdown(reason: string): void {
    if (this.closing) return;
    this.closing = true;
    // Not net.close() for a Unix socket: it unlinks the path, which may be a newer server's socket by now.
    // Remove ours only; requests still arriving are declined, and exit closes the listener. Ours only while the
    // pid file is: a newer server removed our socket when it took over, and its own socket may have been given
    // our freed inode number, so the inode alone cannot tell them apart (a server that owns the pid file
    // removes whatever socket file it finds before it listens, so a socket left here is never in the way).
    const ownsDataHome = ownsFile(this.paths.pidFile, String(process.pid));
    if (!this.paths.socketDir) this.net.close();
    else if (ownsDataHome && inode(this.paths.socket) === this.socketIno) rmSync(this.paths.socket, { force: true });
    this.http?.close();
    releaseFile(this.paths.pidFile, String(process.pid));
    markServerStopped(this.paths);
    if (this.trace) appendHookLog(this.dataHome, `hook-server ${process.pid} exits: ${reason}`);
    if (this.pending === 0) process.exit(0);
  }
}

/**
 * An HTTP hook call, run as `retrace hook claude-code` with the payload on stdin. It brings no process of its
 * own: the cwd is the payload's `cwd` when that is an existing folder, the environment the server's own,
 * without CLAUDE_PROJECT_DIR (that of whichever call started the server: the payload's cwd names the project).
 */
async function runHttpHook(dataHome: string, payload: string, env: Record<string, string>): Promise<HookAnswer> {
  const { CLAUDE_PROJECT_DIR: _started, ...rest } = env;
  return runAsCaller({
    build: BUILD_ID,
    dataHome,
    argv: ['hook', 'claude-code', '--data-dir', dataHome],
    cwd: existingFolder(payloadCwd(payload)) ?? path.parse(dataHome).root,
    env: rest,
    stdin: payload,
  });
}

function payloadCwd(payload: string): string | null {
  try {
    const cwd = (JSON.parse(payload) as { cwd?: unknown }).cwd;
    return typeof cwd === 'string' && path.isAbsolute(cwd) ? cwd : null;
  } catch {
    return null; // the hook itself logs the bad JSON
  }
}

function existingFolder(dir: string | null): string | null {
  try {
    return dir !== null && statSync(dir).isDirectory() ? dir : null;
  } catch {
    return null;
  }
}

/** Run the CLI as the caller's process would: its cwd, environment, umask and stdin; its output captured. */
async function runAsCaller(req: HookRequest): Promise<HookAnswer> {
  const { main } = await import('../index');
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  try {
    process.chdir(req.cwd);
  } catch {
    return { status: 'declined', reason: 'cannot enter the caller’s cwd' };
  }
  replaceEnv(forwardedEnv(req.env)); // a client of this build sends only these; take no more from another
  const savedUmask = typeof req.umask === 'number' ? process.umask(req.umask) : null;
  const stdout = capture(process.stdout);
  const stderr = capture(process.stderr);
  try {
    const code = await main(req.argv, { stdin: req.stdin, via: 'server' });
    return { status: 'ok', code, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    stdout.restore();
    stderr.restore();
    replaceEnv(savedEnv);
    if (savedUmask !== null) process.umask(savedUmask);
    process.chdir(savedCwd);
  }
}

/** Only what differs is written: each write is a setenv under libuv's lock, and most calls change nothing. */
function replaceEnv(next: Record<string, string | undefined>): void {
  for (const k of Object.keys(process.env)) if (!Object.hasOwn(next, k)) delete process.env[k];
  for (const [k, v] of Object.entries(next)) if (v !== undefined && process.env[k] !== v) process.env[k] = v;
}

function capture(stream: NodeJS.WriteStream): { text(): string; restore(): void } {
  const chunks: string[] = [];
  const original = stream.write;
  stream.write = ((chunk: string | Uint8Array, enc?: unknown, cb?: unknown): boolean => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = typeof enc === 'function' ? enc : cb;
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  }) as typeof stream.write;
  return { text: () => chunks.join(''), restore: () => void (stream.write = original) };
}

/**
 * Create the pid file exclusively. One that exists is another server's unless its pid is dead, or it is no
 * longer starting (older than the grace) and nothing answers on the socket (a reused pid).
 */
async function claimPidFile(paths: HookServerPaths): Promise<boolean> {
  const mine = String(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFilePrivateSync(paths.pidFile, mine, { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    let raw: string;
    let age: number;
    try {
      raw = readFileSync(paths.pidFile, 'utf8');
      age = Date.now() - statSync(paths.pidFile).mtimeMs;
    } catch {
      continue; // gone meanwhile: try again
    }
    const alive = pidAlive(Number(raw));
    // Empty and young: its owner has created it and not written its pid yet.
    if (age < STARTING_GRACE_MS && (alive || raw === '')) return false;
    if (alive && (await answers(paths.socket))) return false;
    releaseFile(paths.pidFile, raw);
  }
  return false;
}

function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createConnection(socket);
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      s.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 500);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

function ownsFile(file: string, content: string): boolean {
  try {
    return readFileSync(file, 'utf8') === content;
  } catch {
    return false;
  }
}

/** Remove `file` if it still holds `content` (never another server's). */
function releaseFile(file: string, content: string): void {
  try {
    if (ownsFile(file, content)) unlinkSync(file);
  } catch {
    // Already gone.
  }
}

function inode(file: string): number {
  try {
    return statSync(file).ino;
  } catch {
    return -1;
  }
}

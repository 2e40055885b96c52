/**
 * A resident helper that calls syncfs(2) for this process (issue 15). Node has no binding for it, so syncFs.ts runs
 * `sync -f`: a fork and an exec per call, ~2 ms of which the flush itself is a tenth (measured here: 2.1 ms a call
 * through the resident shell, 0.07–0.25 ms for the system call alone), and a restore or a checkpoint makes one or
 * two such calls. Python's ctypes is the one widely installed way to make the call from a process that stays; no
 * npm library does it without a native addon. Written by hand for that reason: a few lines of Python behind a pipe.
 *
 * Only for hosts that live long (the service, the hook server: keepSyncfsHelper), which start it once; a one-shot
 * command would pay Python's start for one or two calls. Until it has said it is ready, or where there is no
 * python3 (macOS has no syncfs anyway), or once it failed, syncFs.ts uses `sync -f` as before. Paths go hex-encoded,
 * one request per line (any byte of a path passes); the answer is 0 or the errno of the first failure.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { findProgram } from './residentShell';
import { holdEventLoop } from './residentProcess';

const SCRIPT = `
import ctypes, os, sys
syncfs = ctypes.CDLL(None, use_errno=True).syncfs
sys.stdout.write("ready\\n"); sys.stdout.flush()
for line in sys.stdin:
    err = 0
    for word in line.split():
        try:
            fd = os.open(bytes.fromhex(word), os.O_RDONLY | os.O_NONBLOCK)
        except OSError as e:
            err = err or e.errno or 1
            continue
        try:
            if syncfs(fd) != 0:
                err = err or ctypes.get_errno() or 1
        finally:
            os.close(fd)
    sys.stdout.write("%d\\n" % err); sys.stdout.flush()
`;

/** Idle this long, the helper stops (a host that is left alone holds no process); the next call starts it again. */
const IDLE_CLOSE_MS = 60_000;

let wanted = false;
let helper: Helper | null = null;

/** A long-lived host asks for the helper (started at its first use; until it is ready, `sync -f` serves). */
export function keepSyncfsHelper(): void {
  if (process.platform === 'linux' && process.env.RETRACE_SYNCFS_HELPER !== '0') wanted = true;
}

/**
 * syncfs of each folder's file system through the helper: true when every one succeeded, false when one failed,
 * null when the helper is not wanted, not ready or gone (the caller runs `sync -f`).
 */
export async function syncfsViaHelper(folders: readonly string[]): Promise<boolean | null> {
  if (!wanted) return null;
  helper ??= Helper.start();
  return helper ? helper.sync(folders) : null;
}

class Helper {
  private ready = false;
  private busy = false;
  private out = '';
  private readonly answers: ((line: string | null) => void)[] = [];
  private idle: NodeJS.Timeout | null = null;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (s: string) => this.onData(s));
    child.stderr.resume();
    child.stdin.on('error', () => {}); // the close below says what happened
    const gone = (): void => {
      if (helper === this) helper = null;
      if (!this.ready) wanted = false; // it never came up (a broken python3): not tried again in this process
      this.ready = false;
      for (const answer of this.answers.splice(0)) answer(null);
    };
    child.on('error', gone);
    child.on('close', gone);
    holdEventLoop(child, false);
    this.closeWhenIdle();
  }

  static start(): Helper | null {
    const python = findProgram('python3', process.env.PATH ?? '');
    if (!python) {
      wanted = false; // none here: never asked again in this process
      return null;
    }
    try {
      const env = process.env.PATH !== undefined ? { PATH: process.env.PATH } : {};
      return new Helper(spawn(python, ['-c', SCRIPT], { cwd: '/', env, stdio: ['pipe', 'pipe', 'pipe'] }));
    } catch {
      wanted = false;
      return null;
    }
  }

  /** One request at a time; a call that finds the helper starting or busy is answered null (`sync -f` then). */
  async sync(folders: readonly string[]): Promise<boolean | null> {
    if (!this.ready || this.busy) return null;
    this.busy = true;
    holdEventLoop(this.child, true);
    try {
      const answer = new Promise<string | null>((resolve) => this.answers.push(resolve));
      this.child.stdin.write(folders.map((f) => Buffer.from(f).toString('hex')).join(' ') + '\n');
      const line = await answer;
      return line === null ? null : line === '0';
    } finally {
      this.busy = false;
      holdEventLoop(this.child, false);
      this.closeWhenIdle();
    }
  }

  private closeWhenIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.child.stdin.end(), IDLE_CLOSE_MS);
    this.idle.unref();
  }

  private onData(s: string): void {
    this.out += s;
    for (let nl = this.out.indexOf('\n'); nl >= 0; nl = this.out.indexOf('\n')) {
      const line = this.out.slice(0, nl);
      this.out = this.out.slice(nl + 1);
      if (!this.ready && line === 'ready') this.ready = true;
      else this.answers.shift()?.(line);
    }
  }
}

/**
 * `sync -f` (one syncfs(2)) run by a small resident shell instead of by this process: a restore syncs twice, and
 * each start of a process from Node forks the whole Node process — 15–20 ms for a few hundred MB on a loaded
 * machine (issue 15), against about a millisecond for the shell's own fork. One request per line (a path), one
 * status line per request ("0" synced, anything else not), answered in order. Like the resident git readers it
 * never keeps Node alive while idle, and stops after IDLE_CLOSE_MS without requests. Anything wrong with it
 * answers false, and the caller starts `sync -f` itself (syncFs.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { holdEventLoop } from './residentProcess';

const IDLE_CLOSE_MS = 30_000;

/** Reads one path per line; `--` so that no path is taken for an option. */
const LOOP = 'while IFS= read -r p; do if sync -f -- "$p" >/dev/null 2>&1; then echo 0; else echo 1; fi; done';

class ResidentSyncer {
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly pending: ((ok: boolean) => void)[] = [];
  private out = '';
  private idle: NodeJS.Timeout | null = null;

  /** syncfs of the file system of each path; false when any of them failed or the shell could not do it. */
  async sync(paths: readonly string[]): Promise<boolean> {
    if (paths.some((p) => p.includes('\n') || p.includes('\0'))) return false; // not sayable in one line
    const answers = await Promise.all(paths.map((p) => this.request(p)));
    return answers.every(Boolean);
  }

  private request(p: string): Promise<boolean> {
    const child = this.current();
    if (!child) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      if (this.pending.length === 0) holdEventLoop(child, true);
      this.pending.push(resolve);
      child.stdin.write(p + '\n');
    }).finally(() => this.armIdle());
  }

  private current(): ChildProcessWithoutNullStreams | null {
    if (this.child) return this.child;
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn('sh', ['-c', LOOP], { stdio: ['pipe', 'pipe', 'pipe'], cwd: '/' });
    } catch {
      return null;
    }
    this.child = child;
    this.out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (s: string) => this.onData(s));
    child.stderr.resume();
    child.stdin.on('error', () => {}); // the exit below answers what was asked
    const gone = (): void => {
      if (this.child === child) this.child = null;
      for (const r of this.pending.splice(0)) r(false);
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
      this.pending.shift()?.(line === '0');
      if (this.pending.length === 0 && this.child) holdEventLoop(this.child, false);
    }
  }

  private armIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.close(), IDLE_CLOSE_MS);
    this.idle.unref();
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.child?.stdin.end();
    this.child = null;
  }
}

const syncer = new ResidentSyncer();

/** syncfs(2) of the file system of each path, through the resident shell; false when that could not be done. */
export function residentSyncfs(paths: readonly string[]): Promise<boolean> {
  return syncer.sync(paths);
}

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { GitError, spawnFailure } from './errors';
import type { GitRunner } from './runner';
import { holdEventLoop } from '../residentProcess';

export interface GitObject {
  type: string;
  body: Buffer;
}

/** What `cat-file --batch-check` says of an object: its type and byte size, not its content. */
export interface ObjectInfo {
  type: string;
  size: number;
}

interface Pending {
  resolve: (o: GitObject | ObjectInfo | null) => void;
  reject: (e: Error) => void;
}

/**
 * One `git cat-file --batch` process answering reads one at a time, for walks whose next request depends on
 * the last answer (a tree's entries name the subtrees to read next). Only object ids go over the wire, so no
 * path ever needs quoting. Answers arrive in request order: `<id> <type> <size>\n<body>\n` or `<id> missing\n`.
 */
export class ObjectReader {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly pending: Pending[] = [];
  /** Requests not yet written: sent together once this turn's code has asked for all it wants (flush). */
  private outgoing: string[] = [];
  private failure: Error | null = null;
  /** The process ended (or was told to): a resident owner opens a new reader instead (residentReader.ts). */
  private ended = false;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    cwd: string,
    /** Resident: the idle process never keeps Node alive (a CLI run exits when its work is done). */
    private readonly resident = false,
    /** `--batch-check`: answers are headers only (sizes for a free-space check, without reading any content). */
    private readonly check = false,
  ) {
    const stderr: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => this.onData(b));
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    child.stdin.on('error', () => {}); // the exit below says what went wrong
    const args = ['cat-file', check ? '--batch-check' : '--batch'];
    const fail = (error: GitError): void => {
      this.failure = error;
      for (const p of this.pending.splice(0)) p.reject(this.failure);
    };
    // Not started: git missing, or the folder it runs in deleted (spawnFailure tells which).
    child.on('error', (e) => fail(spawnFailure(args, cwd, e)));
    child.on('close', (code) => {
      this.ended = true;
      if (this.pending.length > 0)
        fail(
          new GitError(
            'failed',
            `git cat-file --batch exited (${code ?? 'signal'}) mid-read`,
            args,
            code,
            Buffer.concat(stderr).toString(),
          ),
        );
    });
    if (resident) holdEventLoop(this.child, false);
  }

  static open(git: GitRunner, opts: { resident?: boolean; check?: boolean } = {}): ObjectReader {
    const resident = opts.resident === true;
    const check = opts.check === true;
    const child = git.spawnReader(['cat-file', check ? '--batch-check' : '--batch'], { resident });
    return new ObjectReader(child, resident ? git.gitDir : git.workTree, resident, check);
  }

  /** False once the process failed or ended: its owner opens another. */
  get usable(): boolean {
    return this.failure === null && !this.ended;
  }

  /** The object, or null when the repository does not have it (a `check` reader: use info). */
  read(id: string): Promise<GitObject | null> {
    if (this.check) return Promise.reject(new Error('a --batch-check reader has no contents'));
    return this.request(id) as Promise<GitObject | null>;
  }

  /** The object's type and size, or null when the repository does not have it (a `check` reader only). */
  info(id: string): Promise<ObjectInfo | null> {
    if (!this.check) return Promise.reject(new Error('a --batch reader answers with contents: use read'));
    return this.request(id) as Promise<ObjectInfo | null>;
  }

  private request(id: string): Promise<GitObject | ObjectInfo | null> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended)
      return Promise.reject(new GitError('failed', 'git cat-file --batch has ended', ['cat-file'], null, ''));
    if (!/^[0-9a-f]{40}$/.test(id)) return Promise.reject(new Error(`not an object id: ${id}`));
    return new Promise((resolve, reject) => {
      if (this.resident && this.pending.length === 0) holdEventLoop(this.child, true);
      this.pending.push({ resolve, reject });
      if (this.outgoing.push(id) === 1) queueMicrotask(() => this.flush());
    });
  }

  /**
   * One write for the requests of a turn: a restore asks for ~100 sizes at once, and each write to the pipe woke
   * git on the other core (~15 µs of this thread apiece here, most of the pipe traffic of a 1,000-file restore).
   */
  private flush(): void {
    if (this.outgoing.length === 0) return; // written by close already
    const ids = this.outgoing;
    this.outgoing = [];
    this.child.stdin.write(ids.join('\n') + '\n');
  }

  close(): void {
    this.ended = true;
    if (this.outgoing.length > 0) this.flush(); // asked before the close: still answered
    this.child.stdin.end();
  }

  /** Stop the process now (tests: a reader that died under its owner). */
  kill(): void {
    this.child.kill('SIGKILL');
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const nl = this.buffer.indexOf(0x0a);
      if (nl < 0 || this.pending.length === 0) return;
      const header = this.buffer.subarray(0, nl).toString('latin1').split(' ');
      if (header[1] === 'missing') {
        this.buffer = this.buffer.subarray(nl + 1);
        this.settled().resolve(null);
        continue;
      }
      const size = Number(header[2]);
      if (this.check) {
        this.buffer = this.buffer.subarray(nl + 1);
        this.settled().resolve({ type: header[1]!, size });
        continue;
      }
      if (this.buffer.length < nl + 1 + size + 1) return; // the body is still arriving
      const body = Buffer.from(this.buffer.subarray(nl + 1, nl + 1 + size));
      this.buffer = this.buffer.subarray(nl + 1 + size + 1);
      this.settled().resolve({ type: header[1]!, body });
    }
  }

  private settled(): Pending {
    const p = this.pending.shift()!;
    if (this.resident && this.pending.length === 0) holdEventLoop(this.child, false);
    return p;
  }
}

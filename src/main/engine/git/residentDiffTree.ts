import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { FileChange } from '../../../shared/model';
import { DIFF_FILES_ARGS, parseDiffFiles, parseRawChanges, RAW_CHANGES_ARGS, type RawChange } from './diffTree';
import { GitError } from './errors';
import { EMPTY_TREE } from './objects';
import type { GitRunner } from './runner';
import { holdEventLoop } from '../residentProcess';
import { findProgram } from '../residentShell';

/** An idle process is stopped after this long. */
const IDLE_CLOSE_MS = 30_000;

/** The answer to the sentinel request (the empty tree against itself, --always): where an answer ends. */
const SENTINEL = Buffer.from(`${EMPTY_TREE} ${EMPTY_TREE}\n`, 'latin1');

interface Pending<T> {
  header: Buffer;
  resolve: (answer: T) => void;
  reject: (e: Error) => void;
}

/** What a resident diff-tree answers: its options, and the one-process call's parser of that output. */
export interface DiffAnswer<T> {
  args: readonly string[];
  parse: (out: string) => T;
}

/** The diff summaries' answer (diffTreeFiles): renames, +/- per file. */
export const FILE_CHANGES: DiffAnswer<FileChange[]> = { args: DIFF_FILES_ARGS, parse: parseDiffFiles };
/** A restore plan's answer (diffTreeRaw of whole trees, no renames): modes and ids per side. */
export const RAW_CHANGES: DiffAnswer<RawChange[]> = { args: RAW_CHANGES_ARGS, parse: parseRawChanges };

/**
 * One `git diff-tree --stdin` kept per repository for the diff summaries the UI asks on every scrub (FILE_CHANGES)
 * or for restore plans (RAW_CHANGES): a request is `<treeA> <treeB>\n`, and its answer is what diffTreeFiles
 * (diffTreeRaw) would get from a process of its own, after a
 * `<treeA> <treeB>\n` header. Each request is followed by the sentinel request, whose answer ends it (no
 * length is sent). The answer is walked record by record (raw records start with ':', numstat records with
 * `<n>\t<n>\t`), so a path holding any bytes cannot end it early. git must flush per answer: `stdbuf -oL`
 * (Linux coreutils); where that is missing, `available()` is false and callers run one process per diff.
 * Read-only: never takes the writer lock (I10).
 */
export class ResidentDiffTree<T> {
  private child: ChildProcessWithoutNullStreams | null = null;
  private buf = Buffer.alloc(64 * 1024);
  private len = 0;
  /** Where the head request's answer is walked to (a record boundary), so each chunk is walked once. */
  private walked = 0;
  private readonly pending: Pending<T>[] = [];
  private idle: NodeJS.Timeout | null = null;

  constructor(
    private readonly git: GitRunner,
    private readonly answer: DiffAnswer<T>,
    private readonly idleMs = IDLE_CLOSE_MS,
  ) {}

  /** Whether this platform can keep one (stdbuf on PATH; findProgram looks once per PATH). */
  static available(): boolean {
    return process.platform === 'linux' && findProgram('stdbuf', process.env.PATH ?? '') !== null;
  }

  /** The changes between two trees, as the one-process call answers them. Rejects when the process failed. */
  diff(a: string, b: string): Promise<T> {
    if (!/^[0-9a-f]{40}$/.test(a) || !/^[0-9a-f]{40}$/.test(b))
      return Promise.reject(new Error(`not tree ids: ${a} ${b}`));
    const child = this.current();
    return new Promise<T>((resolve, reject) => {
      if (this.pending.length === 0) holdEventLoop(child, true);
      this.pending.push({ header: Buffer.from(`${a} ${b}\n`, 'latin1'), resolve, reject });
      child.stdin.write(`${a} ${b}\n${EMPTY_TREE} ${EMPTY_TREE}\n`);
    }).finally(() => this.armIdle());
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.stop(null, null);
  }

  /** The running process (tests kill it). */
  get process(): ChildProcessWithoutNullStreams | null {
    return this.child;
  }

  private current(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const args = ['diff-tree', '--stdin', ...this.answer.args, '--always'];
    const child = this.git.spawnReader(args, { lineBuffered: true, withoutIndex: true, resident: true });
    this.child = child;
    this.len = 0;
    this.walked = 0;
    const stderr: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => this.onData(child, b));
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    child.stdin.on('error', () => {}); // the exit says what went wrong
    const failed = (detail: string, code: number | null): GitError =>
      new GitError('failed', `git diff-tree --stdin ${detail}`, args, code, Buffer.concat(stderr).toString());
    child.on('error', (e) => this.stop(child, failed(`could not start: ${e.message}`, null)));
    child.on('close', (code) => this.stop(child, failed(`exited (${code ?? 'signal'})`, code)));
    holdEventLoop(child, false);
    return child;
  }

  /** Forget `child` (if still current) and fail what it had not answered. */
  private stop(child: ChildProcessWithoutNullStreams | null, error: Error | null): void {
    const target = child ?? this.child;
    if (!target || target !== this.child) return;
    this.child = null;
    for (const p of this.pending.splice(0)) p.reject(error ?? new Error('git diff-tree --stdin was closed'));
    target.stdin.end();
    if (error) target.kill();
  }

  private onData(child: ChildProcessWithoutNullStreams, chunk: Buffer): void {
    if (child !== this.child) return;
    if (this.len + chunk.length > this.buf.length) {
      const grown = Buffer.alloc(Math.max(this.buf.length * 2, this.len + chunk.length));
      this.buf.copy(grown, 0, 0, this.len);
      this.buf = grown;
    }
    chunk.copy(this.buf, this.len);
    this.len += chunk.length;
    for (;;) {
      const head = this.pending[0];
      if (!head) return;
      const end = this.answerEnd(head.header);
      if (end === 'wait') return;
      if (end === 'desync') {
        this.stop(child, new GitError('failed', 'git diff-tree --stdin answered out of step', [], null, ''));
        return;
      }
      const text = this.buf.subarray(head.header.length, end).toString('utf8');
      const rest = end + SENTINEL.length;
      this.buf.copy(this.buf, 0, rest, this.len);
      this.len -= rest;
      this.walked = 0;
      this.pending.shift();
      if (this.pending.length === 0) holdEventLoop(child, false);
      try {
        head.resolve(this.answer.parse(text));
      } catch (e) {
        head.reject(e as Error);
      }
    }
  }

  /** Where the head answer's records end (the sentinel's offset), 'wait' for more bytes, or 'desync'. */
  private answerEnd(header: Buffer): number | 'wait' | 'desync' {
    const b = this.buf;
    if (this.walked === 0) {
      if (this.len < header.length) return 'wait';
      if (!b.subarray(0, header.length).equals(header)) return 'desync';
      this.walked = header.length;
    }
    let p = this.walked;
    for (;;) {
      if (p >= this.len) return 'wait';
      const next = b[p] === 0x3a ? this.rawRecordEnd(p) : this.numstatRecordEnd(p);
      if (next === 'wait') return 'wait';
      if (next === null) break;
      p = next;
      this.walked = p;
    }
    if (this.len - p < SENTINEL.length) return 'wait';
    return b.subarray(p, p + SENTINEL.length).equals(SENTINEL) ? p : 'desync';
  }

  /** `:<modes> <ids> <status>\0<path>\0` (a rename or copy: two paths). */
  private rawRecordEnd(p: number): number | 'wait' {
    const meta = this.nul(p);
    if (meta < 0) return 'wait';
    const letter = statusLetter(this.buf.subarray(p, meta));
    return this.paths(meta + 1, letter === 'R' || letter === 'C' ? 2 : 1);
  }

  /** `<n>\t<n>\t<path>\0`, or for a rename `<n>\t<n>\t\0<old>\0<new>\0`; null when this is no numstat record. */
  private numstatRecordEnd(p: number): number | 'wait' | null {
    let q = p;
    for (let field = 0; field < 2; field++) {
      const start = q;
      while (q < this.len && (isDigit(this.buf[q]!) || this.buf[q] === 0x2d)) q++;
      if (q >= this.len) return 'wait';
      if (q === start || this.buf[q] !== 0x09) return null;
      q++;
    }
    if (q >= this.len) return 'wait';
    return this.buf[q] === 0 ? this.paths(q + 1, 2) : this.paths(q, 1);
  }

  private paths(from: number, count: number): number | 'wait' {
    let q = from;
    for (let i = 0; i < count; i++) {
      const nul = this.nul(q);
      if (nul < 0) return 'wait';
      q = nul + 1;
    }
    return q;
  }

  private nul(from: number): number {
    return this.buf.subarray(0, this.len).indexOf(0, from);
  }

  private armIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.pending.length === 0) this.close();
    }, this.idleMs);
    this.idle.unref();
  }
}

function statusLetter(meta: Buffer): string {
  // `:100644 100644 <id> <id> R100`: the status is the last field.
  const s = meta.toString('latin1');
  return s.slice(s.lastIndexOf(' ') + 1, s.lastIndexOf(' ') + 2);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * The fast path for a workspace's first snapshot (engineer E; hooked into snapshot.ts).
 *
 * The plain path stages every file with `update-index --add`: one loose object file per blob (100k files →
 * 100k object files and their directories), then write-tree adds one loose object per folder. On this
 * class of machine that costs ~20 s at 100k files, most of it creating files. Here the same blobs are
 * streamed into `git fast-import` (two processes on two cores), which writes packs; a second fast-import
 * writes the folders' trees into a pack; and the index is written directly with the stat data read here.
 * The snapshot code then runs its usual write-tree, which finds every tree already stored.
 *
 * What does not change: the set of paths (the caller's, after its own filtering), the bytes of every blob
 * (read from disk once, hashed here and by git), modes (644/755/symlink as lstat says), and the tree —
 * fastFirstSnapshot.test.ts proves the result is byte-identical to the plain path's. A file that changes
 * while it is read is caught by the next snapshot: its stat is taken before its bytes are read.
 *
 * Compression level 1 is what git uses for loose objects by default (core.looseCompression), so the store is
 * no larger than the plain path's; maintenance (gc) later packs with deltas.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { promises as fs, lstatSync, readFileSync, readlinkSync, type BigIntStats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { gitEnv } from '../git/env';
import { objectId } from '../git/looseObject';
import { indexMode, statFields, writeIndexFile, type IndexEntry } from './indexFile';
import { countLines, type LineCounts } from './lineCounts';

/**
 * Below this many files the plain path is as fast (process start-up dominates) and stays the only one. Measured
 * (issue 15, a loaded 2-core machine, first checkpoint through the coordinator, CPU of the process and its git
 * children): 1,000 files 2.3 s plain vs 1.3 s fast (one loose object and its fsync per file is what costs);
 * 150 files 0.85 s either way. It was 2,000, which left 1,000-file projects on the slow path.
 */
export const FAST_FIRST_MIN_FILES = 500;

/** Bytes queued for one fast-import before the reader waits for it. */
const MAX_BACKLOG = 1 << 20;

export interface FastFirstOptions {
  gitDir: string;
  root: string;
  /** Workspace-relative paths to stage, already filtered by the snapshot (ignore rules, size cap, parents). */
  paths: readonly string[];
  onProgress?: (p: { phase: string; done: number; total?: number }) => void;
  /** fast-import processes for blobs; default: 2 where there are 2+ cores. */
  parallel?: number;
  /** Filled with each blob's numstat line count, for the first checkpoint's stats (lineCounts.ts). */
  lineCounts?: LineCounts;
}

/**
 * True when the shadow index holds no entries yet: no file, or an index of zero entries that does not link
 * to a shared index (core.splitIndex: the `index` file then holds only what changed since the shared part,
 * often nothing, while the shared part holds every entry).
 */
export async function indexIsEmpty(gitDir: string, indexFile = path.join(gitDir, 'index')): Promise<boolean> {
  let fh;
  try {
    fh = await fs.open(indexFile, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw e;
  }
  try {
    const head = Buffer.alloc(12);
    const { bytesRead } = await fh.read(head, 0, 12, 0);
    if (bytesRead < 12 || head.toString('latin1', 0, 4) !== 'DIRC' || head.readUInt32BE(8) !== 0) return false;
    // Zero entries, so the file is small: its extensions (signature, 32-bit size, data) precede the checksum.
    const bytes = await fs.readFile(indexFile);
    for (let pos = 12; pos + 8 <= bytes.length - 20; pos += 8 + bytes.readUInt32BE(pos + 4)) {
      if (bytes.toString('latin1', pos, pos + 4) === 'link') return false;
    }
    return true;
  } finally {
    await fh.close();
  }
}

/** Should this snapshot take the fast path? Only a first snapshot (empty index: indexIsEmpty) of many files. */
export function useFastFirst(indexEmpty: boolean, filesToAdd: number): boolean {
  return indexEmpty && filesToAdd >= FAST_FIRST_MIN_FILES && process.env.RETRACE_FAST_PATHS !== '0';
}

/** A running `git fast-import`, fed record by record with back-pressure. */
class FastImport {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly exited: Promise<void>;
  private stderr = '';

  constructor(gitDir: string) {
    this.child = spawn(
      'git',
      [
        `--git-dir=${gitDir}`,
        '-c',
        'core.compression=1',
        '-c',
        'pack.compression=1',
        'fast-import',
        '--quiet',
        '--done',
        '--depth=0',
      ],
      { env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true },
    );
    this.child.stdout.resume();
    this.child.stderr.on('data', (b: Buffer) => (this.stderr += b.toString('utf8')));
    this.child.stdin.on('error', () => {}); // an early exit shows in the exit code
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', (e) => reject(new RetraceError('E_GIT', `cannot run git fast-import: ${e.message}`)));
      this.child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}: ${this.stderr.slice(0, 300)}`)),
      );
    });
    this.exited.catch(() => {});
  }

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private drain: Promise<void> | null = null;

  /**
   * Queue one record. Records are gathered into ~256 kB writes: one pipe write per file cost more CPU than
   * fast-import's own work on small files.
   */
  write(...chunks: (Buffer | string)[]): void {
    for (const c of chunks) {
      const b = typeof c === 'string' ? Buffer.from(c, 'latin1') : c;
      this.pending.push(b);
      this.pendingBytes += b.length;
    }
    if (this.pendingBytes >= 256 * 1024) this.flush();
  }

  /** Bytes written but not yet taken by git. */
  get backlog(): number {
    return this.child.stdin.writableLength + this.pendingBytes;
  }

  /** Resolves once git has taken what was written (at once when it has). */
  drained(): Promise<void> {
    if (!this.child.stdin.writableNeedDrain) return Promise.resolve();
    // One listener per drain, however many waits race on it.
    this.drain ??= new Promise<void>((resolve) => this.child.stdin.once('drain', resolve)).finally(() => {
      this.drain = null;
    });
    return this.drain;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.child.stdin.write(Buffer.concat(this.pending, this.pendingBytes));
    this.pending = [];
    this.pendingBytes = 0;
  }

  async finish(): Promise<void> {
    this.flush();
    this.child.stdin.end('done\n');
    await this.exited;
  }

  kill(): void {
    this.child.kill();
  }
}

/**
 * A path as fast-import reads it, as a string of byte values (written out as latin1): the UTF-8 bytes as they
 * are, or C-style quoted when the path could be misread (a leading quote, a newline, a backslash, controls).
 */
function fastImportPath(p: string): string {
  const bytes = Buffer.from(p, 'utf8');
  const plain = !p.startsWith('"') && ![...bytes].some((b) => b < 0x20 || b === 0x7f || b === 0x5c || b === 0x22);
  if (plain) return bytes.toString('latin1');
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += '\\\\';
    else if (b < 0x20 || b === 0x7f) out += '\\' + b.toString(8).padStart(3, '0');
    else out += String.fromCharCode(b);
  }
  return out + '"';
}

/** lstat and bytes of one file, synchronously (see diskChecks.ts for why); null when it is not a file now. */
function readEntry(root: string, rel: string): { st: BigIntStats; bytes: Buffer } | null {
  const full = path.join(root, rel);
  try {
    const st = lstatSync(full, { bigint: true });
    if (st.isSymbolicLink()) return { st, bytes: readlinkSync(full, { encoding: 'buffer' }) };
    if (!st.isFile()) return null; // became a folder or a special file meanwhile: not staged, as update-index would not
    return { st, bytes: readFileSync(full) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null; // vanished meanwhile: dropped, as update-index does
    throw new RetraceError('E_UNREADABLE', `cannot read ${rel}: ${code ?? (e as Error).message}`);
  }
}

/**
 * Stage `paths` into an empty shadow index: blobs and trees into packs, then the index. The caller runs
 * write-tree as usual. Any failure leaves the index untouched (the caller may fall back to the plain path).
 */
export async function fastFirstAdd(opts: FastFirstOptions): Promise<void> {
  const { gitDir, root, paths, onProgress } = opts;
  const parallel = Math.max(1, opts.parallel ?? Math.min(2, os.availableParallelism()));
  const importers = Array.from({ length: parallel }, () => new FastImport(gitDir));
  const entries: (IndexEntry & { path: string })[] = [];
  try {
    let done = 0;
    const total = paths.length;
    let sliceStart = performance.now();
    for (const rel of paths) {
      const got = readEntry(root, rel);
      if (got) {
        const oid = objectId('blob', got.bytes);
        entries.push({ path: rel, mode: indexMode(got.st), oid, stat: statFields(got.st) });
        opts.lineCounts?.set(oid, countLines(got.bytes));
        // Each file goes to the importer with the least waiting for it, so both git processes (two cores)
        // stay busy; when both have plenty queued, wait for either.
        const fi = importers.reduce((a, b) => (b.backlog < a.backlog ? b : a));
        fi.write(`blob\ndata ${got.bytes.length}\n`, got.bytes, '\n');
        if (importers.every((x) => x.backlog > MAX_BACKLOG)) {
          await Promise.race(importers.map((x) => x.drained()));
          sliceStart = performance.now();
        }
      }
      if (++done % 1000 === 0) onProgress?.({ phase: 'hash', done, total });
      if (performance.now() - sliceStart > 8) {
        await new Promise((resolve) => setImmediate(resolve)); // let the event loop answer meanwhile
        sliceStart = performance.now();
      }
    }
    await Promise.all(importers.map((fi) => fi.finish()));
    onProgress?.({ phase: 'hash', done: total, total });

    // Trees: one commit naming every entry makes fast-import write all the folders' trees into a pack.
    const tmpRef = `refs/retrace/tmp/fast-first-${process.pid}`;
    const trees = new FastImport(gitDir);
    importers.push(trees);
    trees.write(`commit ${tmpRef}\ncommitter Retrace <retrace@localhost> 0 +0000\ndata 0\n`);
    for (const e of entries) {
      trees.write(`M ${e.mode.toString(8)} ${e.oid} ${fastImportPath(e.path)}\n`);
      if (trees.backlog > MAX_BACKLOG) await trees.drained();
    }
    await trees.finish();
    await deleteRef(gitDir, tmpRef);
  } catch (e) {
    for (const fi of importers) fi.kill();
    throw e;
  }
  onProgress?.({ phase: 'index', done: 0, total: entries.length });
  await writeIndexFile(path.join(gitDir, 'index'), entries);
}

function deleteRef(gitDir: string, ref: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [`--git-dir=${gitDir}`, 'update-ref', '-d', ref], { env: gitEnv(), stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`update-ref -d ${ref} exited ${code}`))));
  });
}

/**
 * Session logs read once, then only what was appended (issue 15: following live costs what is new).
 *
 * Per log file it keeps the folded state, the byte offset of the complete lines folded in, and the file's
 * identity when it was read (dev, ino, size, mtime, ctime). A later read stats the file:
 *   - same identity: the kept state, no read;
 *   - same file grown, and the bytes just before the offset unchanged: read and fold only the new complete lines;
 *   - anything else (replaced: another inode; shorter; same size but rewritten; the end of the old content
 *     changed): a full read, as if nothing were kept.
 * A log whose last line has no newline yet (a write in progress, a torn write) is answered by a full read of its
 * own, so that the answer always equals a fresh full read (parseJsonl also counts or parses that last piece).
 *
 * Reads are synchronous on purpose: nothing can interleave between the stat and the fold, so concurrent callers
 * never fold the same bytes twice. Readers take no lock (I10); appends are whole lines.
 */
import { closeSync, fstatSync, openSync, readSync, statSync, type BigIntStats } from 'node:fs';
import type { SessionEvent } from './events';
import { isNotFound, parseJsonl } from './jsonl';
import { SessionFold } from './replay';

/** How many bytes before the offset are compared to notice a log rewritten (not appended to) that grew. */
const GUARD_BYTES = 256;

interface Entry {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  /** Bytes of complete lines folded in. */
  offset: number;
  /** The last bytes before `offset`, as read. */
  guard: Buffer;
  /** True when bytes after `offset` (a line without its newline) were left out of the fold. */
  unterminated: boolean;
  fold: SessionFold;
}

export type LogRead =
  | { kind: 'missing' }
  /** The kept fold: read it, never change it (SessionFold.view), or take a snapshot. */
  | { kind: 'cached'; fold: SessionFold }
  /** A fold of this read only (the log ends in an unterminated line). */
  | { kind: 'uncached'; fold: SessionFold };

export class LogCache {
  private readonly entries = new Map<string, Entry>();

  /** The folded state of log `file` (session `id`), reading only what was appended since the last call. */
  read(file: string, id: string): LogRead {
    // The common case (an unchanged log, when the session list is asked for again) costs one stat.
    const kept = this.entries.get(file);
    const quick = kept && statSync(file, { bigint: true, throwIfNoEntry: false });
    if (kept && quick && !kept.unterminated && sameIdentity(kept, quick)) return { kind: 'cached', fold: kept.fold };
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch (e) {
      if (isNotFound(e)) {
        this.entries.delete(file);
        return { kind: 'missing' };
      }
      throw e;
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      let entry: Entry;
      if (kept && sameIdentity(kept, st)) {
        entry = kept;
      } else if (kept && grewFrom(kept, st) && guardHolds(fd, kept)) {
        entry = this.foldFrom(fd, st, kept, id);
      } else {
        entry = this.foldFrom(fd, st, null, id);
      }
      this.entries.set(file, entry);
      if (!entry.unterminated) return { kind: 'cached', fold: entry.fold };
      // The last piece is either a write in progress or a torn line: a full read decides, as it always did.
      const all = readRange(fd, 0, Number(st.size));
      const { records, skipped } = parseJsonl<SessionEvent>(all.toString('utf8'));
      return { kind: 'uncached', fold: new SessionFold(id).add(records, skipped) };
    } finally {
      closeSync(fd);
    }
  }

  /** Forget a log (it was removed or is about to be rewritten by this process). */
  drop(file: string): void {
    this.entries.delete(file);
  }

  /** Fold the complete lines after `kept.offset` into kept's fold (or everything into a new one). */
  private foldFrom(fd: number, st: BigIntStats, kept: Entry | null, id: string): Entry {
    const start = kept ? kept.offset : 0;
    const bytes = readRange(fd, start, Number(st.size) - start);
    const end = bytes.lastIndexOf(0x0a) + 1; // 0 when no complete line was added
    const fold = kept ? kept.fold : new SessionFold(id);
    if (end > 0 || !kept) {
      const { records, skipped } = parseJsonl<SessionEvent>(bytes.subarray(0, end).toString('utf8'));
      fold.add(records, skipped);
    }
    const offset = start + end;
    const guardFrom = Math.max(0, offset - GUARD_BYTES);
    const guard =
      guardFrom >= start
        ? Buffer.from(bytes.subarray(guardFrom - start, end))
        : Buffer.concat([kept!.guard.subarray(kept!.guard.length - (start - guardFrom)), bytes.subarray(0, end)]);
    return {
      dev: st.dev,
      ino: st.ino,
      size: st.size,
      mtimeNs: st.mtimeNs,
      ctimeNs: st.ctimeNs,
      offset,
      guard,
      unterminated: end < bytes.length,
      fold,
    };
  }
}

function sameIdentity(e: Entry, st: BigIntStats): boolean {
  return (
    e.dev === st.dev && e.ino === st.ino && e.size === st.size && e.mtimeNs === st.mtimeNs && e.ctimeNs === st.ctimeNs
  );
}

/** The same file, longer than when it was read (a log only ever grows by appends). */
function grewFrom(e: Entry, st: BigIntStats): boolean {
  return e.dev === st.dev && e.ino === st.ino && st.size > e.size;
}

/** The bytes just before the offset are still those read: the file was appended to, not rewritten. */
function guardHolds(fd: number, e: Entry): boolean {
  const now = readRange(fd, e.offset - e.guard.length, e.guard.length);
  return now.equals(e.guard);
}

function readRange(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(Math.max(0, length));
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, position + got);
    if (n === 0) break; // shrank while reading: what was there
    got += n;
  }
  return got === buf.length ? buf : buf.subarray(0, got);
}

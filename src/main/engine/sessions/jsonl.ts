/**
 * Append-only JSON-lines files (session logs, the restore ledger, the recovery log).
 *
 * A crash can leave the last line cut short. Readers skip a line that does not parse and count it; the next
 * append first terminates such a line with a newline, so earlier lines are never rewritten and one torn write
 * costs exactly one record.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { openPrivateSync } from '../privateFs';
import { open, readFile } from 'node:fs/promises';

export interface ReadResult<T> {
  records: T[];
  /** Lines that did not parse (a torn last write, or damage); they are skipped. */
  skipped: number;
}

/** Read every record. A missing file reads as empty. */
export async function readJsonl<T>(file: string): Promise<ReadResult<T>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (isNotFound(e)) return { records: [], skipped: 0 };
    throw e;
  }
  return parseJsonl<T>(text);
}

export function parseJsonl<T>(text: string): ReadResult<T> {
  const records: T[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const value = parseRecord<T>(line);
    if (value === null) skipped++;
    else records.push(value);
  }
  return { records, skipped };
}

/** One line's record: an object, else null (a torn or damaged line). */
function parseRecord<T>(line: string): T | null {
  try {
    const value: unknown = JSON.parse(line);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as T) : null;
  } catch {
    return null;
  }
}

const TAIL_BLOCK_BYTES = 64 * 1024;

/**
 * The newest record `wanted` accepts, null when none: the file read from its end, a block at a time, so a file
 * that only grows (the restore ledger: a line per restore, each listing its paths) costs what its last lines
 * cost, not its length. The same records as readJsonl: lines that do not parse are skipped.
 */
export async function newestRecord<T>(
  file: string,
  wanted: (record: T) => boolean,
  blockBytes = TAIL_BLOCK_BYTES,
): Promise<T | null> {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
  try {
    let end = (await fh.stat()).size;
    let rest = Buffer.alloc(0); // a line's end whose start lies in a block before this one
    while (end > 0) {
      const start = Math.max(0, end - blockBytes);
      const block = Buffer.alloc(end - start);
      const { bytesRead } = await fh.read(block, 0, block.length, start);
      if (bytesRead !== block.length) throw new Error(`${file}: shorter than it was a moment ago`);
      const buf = Buffer.concat([block, rest]);
      let cut = buf.length;
      for (;;) {
        // Not lastIndexOf(…, -1): a negative offset counts from the end.
        const nl = cut === 0 ? -1 : buf.lastIndexOf(0x0a, cut - 1);
        if (nl < 0 && start > 0) break; // this line starts in the block before
        const line = buf.subarray(nl + 1, cut).toString('utf8');
        const record = line.trim() === '' ? null : parseRecord<T>(line);
        if (record !== null && wanted(record)) return record;
        if (nl < 0) break;
        cut = nl;
      }
      rest = Buffer.from(buf.subarray(0, cut));
      end = start;
    }
    return null;
  } finally {
    await fh.close();
  }
}

export interface AppendResult {
  /** True when the file ended in a torn line that this append had to terminate first. */
  repairedTornLine: boolean;
}

/**
 * Append records as lines and fsync. `create: false` refuses to create the file (the caller expects it).
 * Synchronous on purpose: one small write, and nothing can interleave between the tail check and the write.
 */
export function appendJsonl(file: string, records: readonly object[], opts: { create?: boolean } = {}): AppendResult {
  const fd = openPrivateSync(file, opts.create === false ? 'r+' : 'a+');
  try {
    const size = fstatSync(fd).size;
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    const body = prefix + records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    // 'r+' opens at 0; write at the end explicitly. 'a+' appends regardless of the position.
    writeSync(fd, body, size, 'utf8');
    fsyncSync(fd);
    return { repairedTornLine: prefix !== '' };
  } finally {
    closeSync(fd);
  }
}

/**
 * The last complete record of a file, reading only its tail (grows the window for long lines).
 * Used to find a session's updatedAt without reading the whole log.
 */
export function readLastRecord<T>(file: string): T | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    let window = 4096;
    for (;;) {
      const start = Math.max(0, size - window);
      const buf = Buffer.alloc(size - start);
      readSync(fd, buf, 0, buf.length, start);
      const lines = buf.toString('utf8').split('\n');
      // Without the file's start, the first piece may be a partial line: ignore it.
      const candidates = start === 0 ? lines : lines.slice(1);
      for (let i = candidates.length - 1; i >= 0; i--) {
        const line = candidates[i]!;
        if (line.trim() === '') continue;
        try {
          const v: unknown = JSON.parse(line);
          if (v && typeof v === 'object' && !Array.isArray(v)) return v as T;
        } catch {
          // torn or damaged line: look further back
        }
      }
      if (start === 0) return null;
      window *= 4;
    }
  } finally {
    closeSync(fd);
  }
}

export function isNotFound(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: string }).code === 'ENOENT';
}

/**
 * Reads one git index file as it is: its entries and extensions (parseFile), and the EWAH bitmaps of a split index's
 * `link` extension (readEwah). For indexEdit.ts and splitIndexEdit.ts, which give a restore's files their entries
 * instead of having `update-index` hash again every byte the restore has just written. Written by hand: no
 * maintained JavaScript library reads the index as the shadow repository keeps it (version 4, split;
 * isomorphic-git reads neither).
 *
 * Format (gitformat-index): "DIRC", version, entry count; per entry ten 32-bit stat fields, the object id, 16-bit
 * flags (and 16 more when the extended bit is set, version 3+), then the path: version 4 as a varint count of
 * bytes to drop from the previous path plus the NUL-terminated rest, versions 2–3 as is and NUL-padded to a
 * multiple of 8. Extensions follow (signature, size, data), then the SHA-1 of all that precedes it.
 *
 * A split index's `link` extension names the shared index (sharedindex.<id>) and holds two EWAH bitmaps over its
 * entries: those the main file replaces (in order, by its first entries, whose names are empty) and those it
 * deletes; the main file's other entries are added (splitIndexEdit.ts).
 *
 * Anything this reader does not expect — another hash, a conflict stage, extended flags (skip-worktree,
 * intent-to-add), a required extension it does not know, a checksum that does not match — throws Unexpected, and
 * the caller leaves the work to git.
 */
import { createHash } from 'node:crypto';
import type { IndexEntry, IndexStat } from './indexFile';

export interface ParsedEntry extends IndexEntry {
  path: Buffer;
  oid: Buffer;
}

/**
 * The layout (gitformat-index), shared with the walk of splitIndexEdit.ts: header bytes, object id bytes, the fixed
 * part of an entry (stat data, id, flags), and the flags this reader refuses (extended, a conflict stage).
 */
export const HEADER = 12;
const STAT_BYTES = 40;
export const ID_BYTES = 20;
export const ENTRY_FIXED = STAT_BYTES + ID_BYTES + 2;
export const REFUSED_FLAGS = 0x4000 | 0x3000;
const NAME_MASK = 0x0fff;

/** Extensions that describe the file's layout only: dropped when the index is rewritten. */
const DROPPED = new Set(['EOIE', 'IEOT', 'link']);
/**
 * Optional extensions carried over (cacheTree.ts carriedOver): the cache-tree, with the trees an edit touches marked
 * invalid, and the untracked cache as it is. Dropping either would make git's next tree or scan slower.
 */
export const KEPT = new Set(['TREE', 'UNTR']);

/** The index holds something this reader does not take: the caller leaves the work to git. */
export class Unexpected extends Error {}

/** The index ends with the SHA-1 of everything before it (git's own integrity check), and starts "DIRC". */
export function indexChecksumOk(bytes: Buffer): boolean {
  if (bytes.length < 32 || bytes.subarray(0, 4).toString('latin1') !== 'DIRC') return false;
  const body = bytes.subarray(0, bytes.length - ID_BYTES);
  return createHash('sha1')
    .update(body)
    .digest()
    .equals(bytes.subarray(bytes.length - ID_BYTES));
}

export interface ParsedFile {
  /** 2, 3 or 4. */
  version: number;
  entries: ParsedEntry[];
  extensions: { signature: string; data: Buffer }[];
}

/** One index file as it is (a split index's main file: its nameless replacements first); throws Unexpected. */
export function parseFile(bytes: Buffer): ParsedFile {
  if (!indexChecksumOk(bytes) || bytes.length < HEADER + ID_BYTES) throw new Unexpected('not an intact index');
  const body = bytes.subarray(0, bytes.length - ID_BYTES);
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) throw new Unexpected(`version ${version}`);
  const count = bytes.readUInt32BE(8);
  const entries: ParsedEntry[] = [];
  let at = HEADER;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const start = at;
    const fields = entryFields(body, at);
    const flags = body.readUInt16BE(at + STAT_BYTES + ID_BYTES);
    if (flags & REFUSED_FLAGS) throw new Unexpected('extended flags or a conflict stage');
    at += ENTRY_FIXED;
    let name: Buffer;
    if (version === 4) {
      const [drop, next] = readVarint(body, at);
      if (drop > previous.length) throw new Unexpected('bad path compression');
      const end = body.indexOf(0, next);
      if (end < 0) throw new Unexpected('unterminated path');
      const keep = previous.length - drop;
      name = Buffer.allocUnsafe(keep + end - next);
      previous.copy(name, 0, 0, keep);
      body.copy(name, keep, next, end);
      at = end + 1;
    } else {
      const length = flags & NAME_MASK;
      const end = length < NAME_MASK ? at + length : body.indexOf(0, at);
      if (end < 0 || end > body.length) throw new Unexpected('unterminated path');
      name = Buffer.from(body.subarray(at, end));
      at = start + ((ENTRY_FIXED + (end - at) + 8) & ~7);
    }
    if (at > body.length) throw new Unexpected('truncated');
    entries.push({ ...fields, path: name });
    previous = name;
  }
  const extensions: ParsedFile['extensions'] = [];
  while (at < body.length) {
    if (at + 8 > body.length) throw new Unexpected('truncated extension');
    const signature = body.toString('latin1', at, at + 4);
    const size = body.readUInt32BE(at + 4);
    if (at + 8 + size > body.length) throw new Unexpected('truncated extension');
    const isOptional = signature[0]! >= 'A' && signature[0]! <= 'Z';
    if (!isOptional && !DROPPED.has(signature)) throw new Unexpected(`required extension ${signature}`);
    extensions.push({ signature, data: body.subarray(at + 8, at + 8 + size) });
    at += 8 + size;
  }
  return { version, entries, extensions };
}

/** The fixed fields of the entry at `at`: mode, object id and stat data (its name follows them). */
export function entryFields(b: Buffer, at: number): Omit<ParsedEntry, 'path'> {
  return {
    mode: b.readUInt32BE(at + 24),
    oid: b.subarray(at + STAT_BYTES, at + STAT_BYTES + ID_BYTES),
    stat: readStat(b, at),
  };
}

function readStat(b: Buffer, at: number): IndexStat {
  return {
    ctimeS: b.readUInt32BE(at),
    ctimeNs: b.readUInt32BE(at + 4),
    mtimeS: b.readUInt32BE(at + 8),
    mtimeNs: b.readUInt32BE(at + 12),
    dev: b.readUInt32BE(at + 16),
    ino: b.readUInt32BE(at + 20),
    uid: b.readUInt32BE(at + 28),
    gid: b.readUInt32BE(at + 32),
    size: b.readUInt32BE(at + 36),
  };
}

/** Where `name` is among entries sorted by name bytes; -1 when it is not. */
export function positionOf(entries: readonly { path: Buffer }[], name: Buffer): number {
  let lo = 0;
  let hi = entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = Buffer.compare(entries[mid]!.path, name);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** git's varint (varint.c): 7 bits a byte, most significant first, each continuation biased by one. */
function readVarint(b: Buffer, at: number): [number, number] {
  let c = b[at++]!;
  let value = c & 127;
  while (c & 128) {
    if (at >= b.length || value > 2 ** 40) throw new Unexpected('bad varint');
    c = b[at++]!;
    value = (value + 1) * 128 + (c & 127);
  }
  return [value, at];
}

/**
 * An EWAH bitmap (ewah/ewah_io.c): bit count, word count, that many 64-bit words, the last marker's position.
 * Each marker word says a run of words that are all 0 or all 1 (bit 0; length in bits 1–32) and how many literal
 * words follow it (bits 33–63). Returns the set positions, ascending, and where the bitmap ends.
 */
export function readEwah(b: Buffer, at: number): [number[], number] {
  const bits = b.readUInt32BE(at);
  const words = b.readUInt32BE(at + 4);
  const end = at + 8 + words * 8 + 4;
  if (end > b.length) throw new Unexpected('truncated bitmap');
  const word = (i: number): bigint => b.readBigUInt64BE(at + 8 + i * 8);
  const set: number[] = [];
  let pos = 0;
  for (let i = 0; i < words;) {
    const marker = word(i++);
    const run = Number((marker >> 1n) & 0xffffffffn) * 64;
    if (marker & 1n) for (let k = 0; k < run; k++) set.push(pos + k);
    pos += run;
    const literals = Number(marker >> 33n);
    if (i + literals > words) throw new Unexpected('bad bitmap');
    for (let k = 0; k < literals; k++, pos += 64) {
      const w = word(i++);
      for (let c = 0; c < 64; c++) if ((w >> BigInt(c)) & 1n) set.push(pos + c);
    }
  }
  if (set.length > 0 && set[set.length - 1]! >= bits) throw new Unexpected('a bit past the bitmap');
  return [set, end];
}

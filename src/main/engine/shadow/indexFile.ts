/**
 * Writes a git index file from entries whose blobs are already in the object store: the fast first snapshot
 * (fastFirstSnapshot.ts), where `update-index --add` would read and hash every file a second time just to record
 * the stat data we already hold, and a restore's staging (stageRestored.ts, from the entries indexRead.ts read).
 *
 * Format (gitformat-index): "DIRC", version, entry count; per entry ctime/mtime (s, ns), dev, ino, mode, uid,
 * gid, size as 32-bit big-endian, the 20-byte object id, 16-bit flags (name length); then the path — in
 * version 2 as is plus NUL padding to a multiple of 8, in version 4 (the shadow's version, smaller and so
 * quicker for git to read and checksum) as a varint of bytes to drop from the previous path plus the
 * NUL-terminated rest; then the extensions given (none: git adds the cache-tree the next time it writes the
 * index), then the SHA-1 of everything before it. Entries are sorted by path bytes.
 *
 * Racy entries (changed in the same instant the index is written) stay safe: git treats an entry whose mtime
 * is not older than the index file's as possibly dirty and compares content.
 */
import { createHash } from 'node:crypto';
import { closeSync, promises as fs, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { openPrivate, openPrivateSync } from '../privateFs';

export interface IndexEntry {
  /** Workspace-relative, '/'-separated (bytes as git keeps them, or a string written as UTF-8). */
  path: string | Buffer;
  /** 0o100644, 0o100755 or 0o120000. */
  mode: number;
  /** The blob id: 40 hex digits, or its 20 bytes. */
  oid: string | Buffer;
  stat: IndexStat;
}

/** The stat data git keeps per entry, each truncated to 32 bits as git stores it (indexRead.ts statFields). */
export interface IndexStat {
  ctimeS: number;
  ctimeNs: number;
  mtimeS: number;
  mtimeNs: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  size: number;
}

/** The index fields of what lstat saw (bigint, so that nanoseconds and 64-bit inodes are exact), as git keeps them. */
export function statFields(st: BigIntStats): IndexStat {
  const u32 = (v: bigint): number => Number(v & 0xffffffffn);
  const NS = 1_000_000_000n;
  return {
    ctimeS: u32(st.ctimeNs / NS),
    ctimeNs: u32(st.ctimeNs % NS),
    mtimeS: u32(st.mtimeNs / NS),
    mtimeNs: u32(st.mtimeNs % NS),
    dev: u32(st.dev),
    ino: u32(st.ino),
    uid: u32(st.uid),
    gid: u32(st.gid),
    size: u32(st.size),
  };
}

/** The index mode git records for what lstat saw (core.fileMode=true): a symlink, or a file 644/755. */
export function indexMode(st: BigIntStats): number {
  if (st.isSymbolicLink()) return 0o120000;
  return (Number(st.mode) & 0o100) !== 0 ? 0o100755 : 0o100644;
}

/**
 * Git takes an entry whose mtime is not older than the index file's as possibly changed unseen; a new index file is
 * newer, so such an entry gets a size that matches no file of content (git's own smudge), whole seconds compared:
 * the coarser rule covers a git built with or without nanosecond timestamps.
 */
export function smudgedIfRacy<T extends IndexEntry>(e: T, indexMtimeS: number): T {
  return e.stat.mtimeS >= indexMtimeS && e.stat.size !== 0 ? { ...e, stat: { ...e.stat, size: 0 } } : e;
}

/** Bytes of git's varint (varint.c) for `value`: 7 bits a byte, most significant first, each continuation biased by one. */
function varintLength(value: number): number {
  let n = 1;
  while ((value = Math.floor(value / 128)) > 0) {
    value--;
    n++;
  }
  return n;
}

function writeVarint(out: Buffer, at: number, value: number): number {
  const n = varintLength(value);
  let i = at + n - 1;
  out[i] = value & 127;
  while ((value = Math.floor(value / 128)) > 0) out[--i] = 128 | (--value & 127);
  return at + n;
}

export interface EncodeOptions {
  version?: 2 | 4;
  /** Extensions to write after the entries, as they are. */
  extensions?: readonly { signature: string; data: Buffer }[];
  /**
   * The entries in the order given, names possibly empty: a split index's main file (splitIndexEdit.ts), its nameless
   * replacements first, then its added entries. Otherwise they are sorted by name, and a name given twice throws.
   */
  asGiven?: boolean;
}

/** One buffer, filled in place: a restore's staging encodes a whole index on its critical path. */
export function encodeIndex(entries: readonly IndexEntry[], opts: EncodeOptions = {}): Buffer {
  const version = opts.version ?? 4;
  const named = entries.map((e) => ({ e, name: typeof e.path === 'string' ? Buffer.from(e.path, 'utf8') : e.path }));
  // Entries read from an index come sorted already: a linear look instead of a sort.
  const sorted =
    opts.asGiven === true || named.every((x, i) => i === 0 || Buffer.compare(named[i - 1]!.name, x.name) < 0);
  if (!sorted) named.sort((a, b) => Buffer.compare(a.name, b.name));
  let size = 12 + 20;
  for (const { name } of named) size += version === 2 ? (62 + name.length + 8) & ~7 : 62 + 5 + name.length + 1;
  for (const x of opts.extensions ?? []) size += 8 + x.data.length;
  const out = Buffer.alloc(size);
  out.write('DIRC', 0, 'latin1');
  out.writeUInt32BE(version, 4);
  out.writeUInt32BE(named.length, 8);
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < named.length; i++) {
    const { e, name } = named[i]!;
    if (!opts.asGiven && i > 0 && Buffer.compare(previous, name) === 0)
      throw new Error(`duplicate index path ${name.toString()}`);
    const st = e.stat;
    out.writeUInt32BE(st.ctimeS, at);
    out.writeUInt32BE(st.ctimeNs, at + 4);
    out.writeUInt32BE(st.mtimeS, at + 8);
    out.writeUInt32BE(st.mtimeNs, at + 12);
    out.writeUInt32BE(st.dev, at + 16);
    out.writeUInt32BE(st.ino, at + 20);
    out.writeUInt32BE(e.mode, at + 24);
    out.writeUInt32BE(st.uid, at + 28);
    out.writeUInt32BE(st.gid, at + 32);
    out.writeUInt32BE(st.size, at + 36);
    if (typeof e.oid === 'string') out.write(e.oid, at + 40, 20, 'hex');
    else e.oid.copy(out, at + 40);
    out.writeUInt16BE(Math.min(name.length, 0xfff), at + 60);
    if (version === 2) {
      // name + 1..8 NULs, so the whole entry is a multiple of 8 bytes (the buffer is zeroed)
      name.copy(out, at + 62);
      at += (62 + name.length + 8) & ~7;
    } else {
      let common = 0;
      const max = Math.min(previous.length, name.length);
      while (common < max && previous[common] === name[common]) common++;
      at = writeVarint(out, at + 62, previous.length - common);
      at += name.copy(out, at, common);
      out[at++] = 0;
    }
    previous = name;
  }
  for (const x of opts.extensions ?? []) {
    out.write(x.signature, at, 4, 'latin1');
    out.writeUInt32BE(x.data.length, at + 4);
    at += 8 + x.data.copy(out, at + 8);
  }
  createHash('sha1').update(out.subarray(0, at)).digest().copy(out, at);
  return out.subarray(0, at + 20);
}

/**
 * Replace `<gitDir>/index` the way git does: write `index.lock` (created exclusively, so a git process that
 * holds it makes us fail rather than race), fsync it, then rename it over the index. Off the event loop: a first
 * snapshot of a large folder writes megabytes here, and the app and the hook server keep answering meanwhile.
 */
export async function writeIndexFile(indexPath: string, entries: readonly IndexEntry[]): Promise<void> {
  const lock = `${indexPath}.lock`;
  const fh = await openPrivate(lock, 'wx');
  try {
    await fh.writeFile(encodeIndex(entries));
    await fh.sync();
  } catch (e) {
    await fh.close();
    await fs.rm(lock, { force: true });
    throw e;
  }
  await fh.close();
  await fs.rename(lock, indexPath);
}

/**
 * Read-modify-write of a small index under git's lock, in plain system calls (a restore does it on its critical
 * path: no thread-pool round trips): `build` runs once `index.lock` is ours, so no git process can write the index
 * between what it reads and what replaces it; null from it leaves the index as it was. The new index is renamed
 * into place unsynced: the caller syncs it (syncIndexFile) before anything relies on it, and a crash meanwhile
 * leaves at worst an index whose checksum fails, which repair.ts rebuilds (the index is a cache).
 */
export function replaceIndexFile(indexPath: string, build: () => Buffer | null): boolean {
  const lock = `${indexPath}.lock`;
  const fd = openPrivateSync(lock, 'wx');
  try {
    const bytes = build();
    if (bytes !== null) for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
    closeSync(fd);
    if (bytes === null) {
      unlinkSync(lock);
      return false;
    }
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    rmSync(lock, { force: true });
    throw e;
  }
  renameSync(lock, indexPath);
  return true;
}

/** fsync an index replaceIndexFile wrote; gone meanwhile (a newer one renamed over it): nothing to do. */
export async function syncIndexFile(indexPath: string): Promise<void> {
  let fh;
  try {
    fh = await fs.open(indexPath, 'r');
  } catch {
    return;
  }
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

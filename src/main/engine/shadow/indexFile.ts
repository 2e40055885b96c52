/**
 * Writes a git index file from entries whose blobs are already in the object store. Used only by the fast
 * first snapshot (fastFirstSnapshot.ts): `update-index --add` would read and hash every file a second time
 * just to record the stat data we already hold.
 *
 * Format (gitformat-index): "DIRC", version, entry count; per entry ctime/mtime (s, ns), dev, ino, mode, uid,
 * gid, size as 32-bit big-endian, the 20-byte object id, 16-bit flags (name length); then the path — in
 * version 2 as is plus NUL padding to a multiple of 8, in version 4 (the shadow's version, smaller and so
 * quicker for git to read and checksum) as a varint of bytes to drop from the previous path plus the
 * NUL-terminated rest; then the SHA-1 of everything before it. Entries are sorted by path bytes. No
 * extensions: git adds the cache-tree and untracked cache the next time it writes the index.
 *
 * Racy entries (changed in the same instant the index is written) stay safe: git treats an entry whose mtime
 * is not older than the index file's as possibly dirty and compares content.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { openPrivate } from '../privateFs';

export interface IndexEntry {
  /** Workspace-relative, '/'-separated. */
  path: string;
  /** 0o100644, 0o100755 or 0o120000. */
  mode: number;
  /** 40-hex blob id. */
  oid: string;
  stat: BigIntStats;
}

const NS = 1_000_000_000n;
const u32 = (v: bigint): number => Number(v & 0xffffffffn);

/** The index mode git records for what lstat saw (core.fileMode=true): a symlink, or a file 644/755. */
export function indexMode(st: BigIntStats): number {
  if (st.isSymbolicLink()) return 0o120000;
  return (Number(st.mode) & 0o100) !== 0 ? 0o100755 : 0o100644;
}

/** git's varint (varint.c): 7 bits a byte, most significant first, each continuation biased by one. */
function encodeVarint(value: number): Buffer {
  const bytes = [value & 127];
  while ((value = Math.floor(value / 128)) > 0) bytes.unshift(128 | (--value & 127));
  return Buffer.from(bytes);
}

export function encodeIndex(entries: readonly IndexEntry[], version: 2 | 4 = 4): Buffer {
  const named = entries.map((e) => ({ e, name: Buffer.from(e.path, 'utf8') }));
  named.sort((a, b) => Buffer.compare(a.name, b.name));
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.write('DIRC', 0, 'latin1');
  header.writeUInt32BE(version, 4);
  header.writeUInt32BE(named.length, 8);
  parts.push(header);
  let previous = Buffer.alloc(0);
  for (let i = 0; i < named.length; i++) {
    const { e, name } = named[i]!;
    if (i > 0 && Buffer.compare(previous, name) === 0) throw new Error(`duplicate index path ${e.path}`);
    const b = Buffer.alloc(62);
    const st = e.stat;
    b.writeUInt32BE(u32(st.ctimeNs / NS), 0);
    b.writeUInt32BE(u32(st.ctimeNs % NS), 4);
    b.writeUInt32BE(u32(st.mtimeNs / NS), 8);
    b.writeUInt32BE(u32(st.mtimeNs % NS), 12);
    b.writeUInt32BE(u32(st.dev), 16);
    b.writeUInt32BE(u32(st.ino), 20);
    b.writeUInt32BE(e.mode, 24);
    b.writeUInt32BE(u32(st.uid), 28);
    b.writeUInt32BE(u32(st.gid), 32);
    b.writeUInt32BE(u32(st.size), 36);
    b.write(e.oid, 40, 20, 'hex');
    b.writeUInt16BE(Math.min(name.length, 0xfff), 60);
    parts.push(b);
    if (version === 2) {
      // name + 1..8 NULs, so the whole entry is a multiple of 8 bytes
      const pad = ((62 + name.length + 8) & ~7) - 62 - name.length;
      parts.push(name, Buffer.alloc(pad));
    } else {
      let common = 0;
      const max = Math.min(previous.length, name.length);
      while (common < max && previous[common] === name[common]) common++;
      parts.push(encodeVarint(previous.length - common), name.subarray(common), Buffer.alloc(1));
    }
    previous = name;
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

/**
 * Replace `<gitDir>/index` the way git does: write `index.lock` (created exclusively, so a git process that
 * holds it makes us fail rather than race), then rename it over the index.
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

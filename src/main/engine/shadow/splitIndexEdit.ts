/**
 * A split shadow index (core.splitIndex) edited the way git edits it: only its small main file is written again, and
 * the shared part it links to is left as it is. A restore's staging (stageRestored.ts, through indexEdit.ts) gives
 * paths the entries of the files it wrote. At 10,000 files this is ~4 ms here (~15 ms in a process's first restore,
 * before the JIT has optimized the walk), where `update-index` reading and hashing those files again and `write-tree`
 * took ~20 ms, and the whole index decoded into objects and written again ~16 ms (~50 ms in a first restore).
 * bench/restoreProfile.ts, A/B in the same minutes: 10,000-file restore 127 → 105 ms, undo 138 → 118; 1,000-file
 * restore 102 → 91, undo 113 → 108 (a slow hour of this machine's disk). Written by hand: no library writes git's
 * split index.
 *
 * The main file (gitformat-index, split-index.c): its first entries have no name and replace, in order, the shared
 * entries at the positions of its `link` extension's replace bitmap; the shared entries at the positions of its
 * delete bitmap are gone; its named entries are added. So a path the shared part holds gets a replacement (or a
 * deletion), and a path the main file added is changed where it is.
 *
 * Git's racy-entry rule, kept as git keeps it for a split index: an entry whose mtime is not older than the old main
 * file's is one git would compare by content; the new main file is newer, so such an entry is smudged (size 0) —
 * a shared one through a replacement, as git itself does since 2.20. Whole seconds are compared: a superset of the
 * entries git's nanosecond rule would take, whichever of the two files' times it reads.
 *
 * The shared part is walked once (scanShared): the only entries decoded are the edited, replaced and racy ones. Anything unexpected (a checksum or name that does not match, a conflict stage,
 * extended flags, a path with no entry) answers null, and the caller leaves the work to git.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { carriedOver } from './cacheTree';
import { encodeIndex, smudgedIfRacy, type IndexEntry } from './indexFile';
import {
  ENTRY_FIXED,
  entryFields,
  HEADER,
  ID_BYTES,
  indexChecksumOk,
  positionOf,
  readEwah,
  REFUSED_FLAGS,
  Unexpected,
  type ParsedEntry,
  type ParsedFile,
} from './indexRead';

const NO_NAME = Buffer.alloc(0);

/** The main file's `link` extension: the shared part it names and its two bitmaps. */
interface Link {
  sharedId: string;
  deleted: Set<number>;
  /** Shared position → the main file's nameless entry that replaces it. */
  replaced: Map<number, ParsedEntry>;
  /** The main file's named entries, sorted. */
  added: ParsedEntry[];
}

/**
 * The main file that gives each path in `edits` its entry (null: removed), as bytes to write in place of `main`;
 * null when `main` is not a split index's main file or anything is unexpected. `mainMtimeS`: the old main file's
 * mtime in whole seconds. `maxSharedBytes`: a larger shared part is left to git (the walk reads all of it).
 */
export function editSplitIndex(
  gitDir: string,
  main: ParsedFile,
  edits: ReadonlyMap<string, IndexEntry | null>,
  mainMtimeS: number,
  maxSharedBytes: number,
): Buffer | null {
  try {
    const link = readLink(main);
    if (!link) return null;
    const shared = readShared(gitDir, link.sharedId, maxSharedBytes);
    if (!shared) return null;
    const count = shared.readUInt32BE(8);
    if ([...link.deleted, ...link.replaced.keys()].some((pos) => pos >= count))
      throw new Unexpected('a bit past the shared part');
    const wanted = [...edits].map(([rel, entry]) => ({ name: Buffer.from(rel, 'utf8'), entry }));
    const seen = scanShared(
      shared,
      wanted.map((w) => w.name),
      mainMtimeS,
    );

    // What the main file replaces, by position: git's replacements (smudged where racy), the racy shared entries
    // (smudged), and the edits; a deleted position is no longer the index's (an edit of that path is an added one).
    const replace = new Map<number, IndexEntry>();
    for (const [pos, e] of link.replaced) replace.set(pos, smudgedIfRacy(e, mainMtimeS));
    for (const [pos, at] of seen.racy) {
      if (!link.deleted.has(pos) && !link.replaced.has(pos))
        replace.set(pos, smudgedIfRacy(entryAt(shared, at), mainMtimeS));
    }
    const deleted = new Set(link.deleted);
    const done = new Set<number>();
    for (const [i, pos] of seen.edited) {
      if (link.deleted.has(pos)) continue;
      const { entry } = wanted[i]!;
      done.add(i);
      if (entry === null) {
        deleted.add(pos);
        replace.delete(pos);
      } else replace.set(pos, { ...entry, path: NO_NAME });
    }

    const added: (IndexEntry | null)[] = link.added.map((e) => smudgedIfRacy(e, mainMtimeS));
    for (const [k, { name, entry }] of wanted.entries()) {
      if (done.has(k)) continue;
      const i = positionOf(link.added, name);
      if (i < 0) return null; // a path with no entry: not ours to add here
      added[i] = entry && { ...entry, path: link.added[i]!.path };
    }

    const positions = [...replace.keys()].sort((a, b) => a - b);
    const entries = [...positions.map((p) => replace.get(p)!), ...added.filter((e): e is IndexEntry => e !== null)];
    const linkData = Buffer.concat([
      Buffer.from(link.sharedId, 'hex'),
      writeEwah([...deleted].sort((a, b) => a - b)),
      writeEwah(positions),
    ]);
    return encodeIndex(entries, {
      version: main.version === 4 ? 4 : 2,
      asGiven: true,
      extensions: [
        { signature: 'link', data: linkData },
        ...carriedOver(
          main.extensions,
          wanted.map((w) => w.name),
        ),
      ],
    });
  } catch (e) {
    if (e instanceof Unexpected || e instanceof RangeError) return null;
    throw e;
  }
}

function readLink(main: ParsedFile): Link | null {
  const ext = main.extensions.find((x) => x.signature === 'link');
  if (!ext) return null;
  if (ext.data.length < ID_BYTES) throw new Unexpected('short link extension');
  const sharedId = ext.data.toString('hex', 0, ID_BYTES);
  if (/^0+$/.test(sharedId)) throw new Unexpected('a link to no shared index');
  let deleted: number[] = [];
  let replacedAt: number[] = [];
  if (ext.data.length > ID_BYTES) {
    const [d, after] = readEwah(ext.data, ID_BYTES);
    const [r, end] = readEwah(ext.data, after);
    if (end !== ext.data.length) throw new Unexpected('garbage after the bitmaps');
    deleted = d;
    replacedAt = r;
  }
  if (replacedAt.length > main.entries.length) throw new Unexpected('fewer replacements than bits');
  const replaced = new Map<number, ParsedEntry>();
  replacedAt.forEach((pos, i) => {
    const e = main.entries[i]!;
    if (e.path.length !== 0) throw new Unexpected('a replacement with a name');
    replaced.set(pos, e);
  });
  const added = main.entries.slice(replacedAt.length);
  if (added.some((e, i) => e.path.length === 0 || (i > 0 && Buffer.compare(added[i - 1]!.path, e.path) >= 0)))
    throw new Unexpected('added entries unnamed or out of order');
  if (deleted.some((pos) => replaced.has(pos))) throw new Unexpected('a position both replaced and deleted');
  return { sharedId, deleted: new Set(deleted), replaced, added };
}

/** The shared part's bytes when they are whole (their SHA-1 is the name the main file links to); null: too large. */
function readShared(gitDir: string, id: string, maxBytes: number): Buffer | null {
  const file = path.join(gitDir, `sharedindex.${id}`);
  let bytes: Buffer;
  try {
    if (statSync(file).size > maxBytes) return null; // not read at all: a large folder's staging is git's
    bytes = readFileSync(file);
  } catch {
    throw new Unexpected('the shared index is missing');
  }
  if (!indexChecksumOk(bytes) || bytes.toString('hex', bytes.length - ID_BYTES) !== id)
    throw new Unexpected('the shared index is not the one linked');
  return bytes;
}

/** What a walk of the shared part found. */
interface SharedScan {
  /** Index of a wanted name → its position. */
  edited: Map<number, number>;
  /** Entries (position, offset) whose mtime is not older than the main file's and whose size is not 0 already. */
  racy: [number, number][];
}

/** Longest name the walk rebuilds; a longer one is left to git. */
const MAX_NAME = 4096;

/** A 32-bit hash of name bytes, extended a byte at a time (scanShared keeps it for every prefix of the name). */
const extend = (hash: number, byte: number): number => ((hash << 5) - hash + byte) | 0;

/**
 * One pass over the shared part (versions 2–4). A restore runs it once, before the JIT has optimized anything, so it
 * is one loop of byte reads with no call per entry (a Buffer copy and a string per entry made it ~20 ms at 10,000
 * entries then, against ~4 ms now): each name is rebuilt byte by byte with the hash of each of its prefixes — a
 * version-4 name is the previous one cut and extended, so the cut name's hash is known — and only a name whose hash
 * is wanted is compared.
 */
function scanShared(bytes: Buffer, wanted: readonly Buffer[], mainMtimeS: number): SharedScan {
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) throw new Unexpected(`version ${version}`);
  const byHash = new Map<number, number[]>();
  wanted.forEach((w, i) => {
    const h = w.reduce(extend, 0);
    byHash.set(h, [...(byHash.get(h) ?? []), i]);
  });
  const out: SharedScan = { edited: new Map(), racy: [] };
  const end = bytes.length - ID_BYTES;
  const count = bytes.readUInt32BE(8);
  const name = new Uint8Array(MAX_NAME);
  const prefixHash = new Int32Array(MAX_NAME + 1);
  let nameLen = 0;
  let at = HEADER;
  for (let pos = 0; pos < count; pos++) {
    const start = at;
    if (at + ENTRY_FIXED > end) throw new Unexpected('truncated');
    const flags = (bytes[at + 60]! << 8) | bytes[at + 61]!;
    if (flags & REFUSED_FLAGS) throw new Unexpected('extended flags or a conflict stage');
    at += ENTRY_FIXED;
    if (version === 4) {
      let c = bytes[at++]!;
      let drop = c & 127;
      while (c & 128) {
        c = bytes[at++]!;
        drop = (drop + 1) * 128 + (c & 127);
      }
      if (drop > nameLen) throw new Unexpected('bad path compression');
      nameLen -= drop;
    } else nameLen = 0;
    let hash = prefixHash[nameLen]!;
    for (;;) {
      if (at >= end) throw new Unexpected('unterminated path');
      const c = bytes[at++]!;
      if (c === 0) break;
      if (nameLen === MAX_NAME) throw new Unexpected('a name longer than the walk keeps');
      name[nameLen++] = c;
      hash = ((hash << 5) - hash + c) | 0; // extend(), written out: a call per byte is slow before the JIT
      prefixHash[nameLen] = hash;
    }
    if (version !== 4) at = start + ((ENTRY_FIXED + nameLen + 8) & ~7);
    const hits = byHash.get(hash);
    if (hits)
      for (const i of hits) if (Buffer.compare(name.subarray(0, nameLen), wanted[i]!) === 0) out.edited.set(i, pos);
    const mtimeS =
      bytes[start + 8]! * 0x1000000 + ((bytes[start + 9]! << 16) | (bytes[start + 10]! << 8) | bytes[start + 11]!);
    if (mtimeS >= mainMtimeS && bytes.readUInt32BE(start + 36) !== 0) out.racy.push([pos, start]);
  }
  return out;
}

/** The entry at `at`, nameless (a replacement's). */
function entryAt(b: Buffer, at: number): IndexEntry {
  return { ...entryFields(b, at), path: NO_NAME };
}

/**
 * An EWAH bitmap (ewah/ewah_io.c) with the given positions set, ascending: bit count, word count, one marker word
 * (no run; every following word literal), the literal words, and the marker's position (0). Git reads any valid
 * layout; this one is the simplest, and a few hundred bytes for a 10,000-entry shared part.
 */
export function writeEwah(positions: readonly number[]): Buffer {
  const bits = positions.length === 0 ? 0 : positions[positions.length - 1]! + 1;
  const literals = Math.ceil(bits / 64);
  const out = Buffer.alloc(8 + 8 * (1 + literals) + 4);
  out.writeUInt32BE(bits, 0);
  out.writeUInt32BE(1 + literals, 4);
  out.writeBigUInt64BE(BigInt(literals) << 33n, 8);
  const words = new BigUint64Array(literals);
  for (const p of positions) words[p >> 6] = words[p >> 6]! | (1n << BigInt(p & 63));
  words.forEach((w, i) => out.writeBigUInt64BE(w, 16 + 8 * i));
  out.writeUInt32BE(0, 16 + 8 * literals);
  return out;
}

/**
 * Has a file changed since we last looked? (I9.) A restore records each planned path's identity right after its
 * safety snapshot and checks it again immediately before replacing or deleting the path.
 *
 * Stat data answers quickly: a different size, mtime, ctime, inode, type or mode means "changed" (then the
 * content decides). Equal stat data is not proof when the recorded times are within the file system's timestamp
 * granularity of the moment we looked (a write in the same clock tick leaves them as they were; whole seconds on
 * some disks), so then the content is hashed and compared with the blob the safety checkpoint holds.
 */
import { lstatSync, readFileSync, readlinkSync, statfsSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { objectId } from '../git/looseObject';

/**
 * Generous bound of timestamp granularity plus clock lag: FAT keeps 2 s, HFS+ and some network disks 1 s, and
 * Linux stamps files from a coarse clock that trails the wall clock by a tick.
 */
export const DOUBT_WINDOW_NS = 3_000_000_000n;

/**
 * The same bound where the stamps are known to be fine: a local Linux file system that keeps nanoseconds, stamped
 * from the kernel's clock, which trails the wall clock by at most one tick (10 ms at the lowest rate, 100 Hz) —
 * twice that. A restore's check of a file written a moment ago (an undo right after its restore) then needs no hash
 * of its content (issue 15: ~10 MB hashed three times per 1,000-file restore in the bench).
 */
export const FINE_DOUBT_WINDOW_NS = 20_000_000n;

/** Local Linux file systems that keep nanosecond stamps (statfs f_type). */
const FINE_STAMP_FILE_SYSTEMS = new Set([
  0xef53, // ext2/3/4 (whole seconds in 128-byte inodes: see finelyStamped)
  0x58465342, // xfs
  0x9123683e, // btrfs
  0xf2f52010, // f2fs
  0x01021994, // tmpfs
]);

export interface StatIdentity {
  type: 'file' | 'link' | 'dir' | 'other';
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  ino: bigint;
  mode: number;
  /** Its owner: a replacement written as root is given the same (apply.ts keepOwner). Not part of sameStat. */
  uid: number;
  gid: number;
  /** Its stamps are fine (FINE_DOUBT_WINDOW_NS applies); looked up by recordedIdentity, for a recently stamped file. */
  fine?: boolean;
}

/** A StatIdentity as a JSON file keeps it (big integers as strings; fine: 0 unknown, 1 fine, 2 coarse). */
export type StoredStat = [StatIdentity['type'], string, string, string, string, number, number, number, 0 | 1 | 2];

export function storeStat(s: StatIdentity): StoredStat {
  const fine = s.fine === undefined ? 0 : s.fine ? 1 : 2;
  return [s.type, `${s.size}`, `${s.mtimeNs}`, `${s.ctimeNs}`, `${s.ino}`, s.mode, s.uid, s.gid, fine];
}

/** storeStat's tuple back; throws on one that is not (a damaged file: its caller treats it as none). */
export function loadStat(st: StoredStat): StatIdentity {
  return {
    type: st[0],
    size: BigInt(st[1]),
    mtimeNs: BigInt(st[2]),
    ctimeNs: BigInt(st[3]),
    ino: BigInt(st[4]),
    mode: st[5],
    uid: st[6],
    gid: st[7],
    ...(st[8] === 0 ? {} : { fine: st[8] === 1 }),
  };
}

/** What the disk should hold at a path: a blob (file or symlink target), or nothing (absent, or only a folder). */
export interface Expectation {
  blob: string | null;
  /** The stat seen when the content was known to be `blob`, and when (ns since the epoch) it was taken. */
  stat?: StatIdentity | null;
  seenAtNs?: bigint;
  /**
   * Its ctime is our own: `stat` equals, ctime included, the stat taken right after a restore of this process renamed
   * the file into place (restore/fileIdentity.ts). A write since would have moved its mtime, so only the mtime can be
   * in doubt; the ctime still has to match.
   */
  ctimeOurs?: true;
}

export function identityOf(st: BigIntStats): StatIdentity {
  return {
    type: st.isFile() ? 'file' : st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'other',
    size: st.size,
    mtimeNs: st.mtimeNs,
    ctimeNs: st.ctimeNs,
    ino: st.ino,
    mode: Number(st.mode),
    uid: Number(st.uid),
    gid: Number(st.gid),
  };
}

/**
 * The path's stat identity; null when absent. A synchronous lstat: a restore looks at each of its paths several
 * times (the plan, the identities, the parents, right before the rename), and through the thread pool each look
 * cost two thread hand-offs, far more than the system call itself (an strace of a 100-file restore: ~2,500 of
 * them, most of its CPU time on a busy machine). The snapshot's own scan does the same (diskChecks.ts).
 */
export async function lstatIdentity(abs: string): Promise<StatIdentity | null> {
  return (await lstatWithLinks(abs))?.id ?? null;
}

/** lstatIdentity, and how many names the file has (hard links): one look for both. */
export async function lstatWithLinks(abs: string): Promise<{ id: StatIdentity; nlink: number } | null> {
  try {
    const st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
    return st ? { id: identityOf(st), nlink: Number(st.nlink) } : null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw e;
  }
}

/**
 * The path's identity as an Expectation records it, to be compared with later: with whether its stamps are fine
 * (inDoubt), looked up only here — a restore looks at each path many times, and only these looks are kept
 * (a statfs per look was ~2 ms of a 1,000-file restore).
 */
export async function recordedIdentity(abs: string): Promise<StatIdentity | null> {
  const id = await lstatIdentity(abs);
  return id && withFineness(id, abs);
}

/** `id` (of the file at `abs`) as an Expectation records it: see recordedIdentity. */
export function withFineness(id: StatIdentity, abs: string): StatIdentity {
  if (id.type === 'dir' || newestStamp(id) < nowNs() - DOUBT_WINDOW_NS) return id;
  return { ...id, fine: finelyStamped(id, abs) };
}

/** `ignoreCtime`: after we linked or renamed the file ourselves, which moves its ctime but not its content. */
export function sameStat(a: StatIdentity, b: StatIdentity, opts: { ignoreCtime?: boolean } = {}): boolean {
  return (
    a.type === b.type &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    (opts.ignoreCtime === true || a.ctimeNs === b.ctimeNs) &&
    a.ino === b.ino &&
    a.mode === b.mode
  );
}

/** Whether a write in the same clock tick as `seenAtNs` could have left these times unchanged. */
export function inDoubt(id: StatIdentity, seenAtNs: bigint, opts: { ignoreCtime?: boolean } = {}): boolean {
  const newest = opts.ignoreCtime ? id.mtimeNs : newestStamp(id);
  return newest >= seenAtNs - (id.fine ? FINE_DOUBT_WINDOW_NS : DOUBT_WINDOW_NS);
}

const newestStamp = (id: StatIdentity): bigint => (id.mtimeNs > id.ctimeNs ? id.mtimeNs : id.ctimeNs);

/**
 * Whether the file's stamps are fine: on a FINE_STAMP_FILE_SYSTEMS file system (its folder's: statfs would follow
 * a symlink), and with a sub-second part in them — ext4 keeps whole seconds in small inodes, and a stamp that is a
 * whole second is taken for one of those.
 */
function finelyStamped(id: StatIdentity, abs: string): boolean {
  if (process.platform !== 'linux') return false;
  if (id.mtimeNs % 1_000_000_000n === 0n || id.ctimeNs % 1_000_000_000n === 0n) return false;
  return fineFolder(path.dirname(abs));
}

/**
 * Whether a folder is on a FINE_STAMP_FILE_SYSTEMS file system, asked once a second per folder: a restore records
 * three identities per path (its plan, the replaced file, the kept one), each a statfs of the same folders (~0.6 ms
 * of a 1,000-file restore). A second bounds how long a file system mounted over the folder meanwhile goes unseen.
 */
function fineFolder(dir: string): boolean {
  const now = Date.now();
  if (now - fineFoldersAt > 1000) {
    fineFolders.clear();
    fineFoldersAt = now;
  }
  let fine = fineFolders.get(dir);
  if (fine === undefined) {
    try {
      fine = FINE_STAMP_FILE_SYSTEMS.has(statfsSync(dir).type);
    } catch {
      fine = false;
    }
    fineFolders.set(dir, fine);
  }
  return fine;
}

const fineFolders = new Map<string, boolean>();
let fineFoldersAt = 0;

export const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

/** The git blob id of what is at `abs` (a file's bytes or a symlink's target); null when absent or a folder. */
export async function diskBlob(abs: string, id: StatIdentity | null): Promise<string | null> {
  if (!id || id.type === 'dir') return null;
  if (id.type !== 'file' && id.type !== 'link') return `not a file (${id.type})`;
  try {
    // Synchronous, as lstatIdentity: one read instead of four thread-pool round trips (open, fstat, read, close).
    if (id.type === 'link') return objectId('blob', readlinkSync(abs, { encoding: 'buffer' }));
    return objectId('blob', readFileSync(abs));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null; // gone since the lstat: it is absent now
    if (code === 'EINVAL' || code === 'EISDIR') return `replaced since the lstat (${code})`;
    throw e;
  }
}

/**
 * Whether the disk at `abs` (currently `now`) still holds what `expect` says: by stat when that is conclusive,
 * else by content. `ignoreCtime` when we moved the ctime ourselves (link, rename).
 */
export async function stillAsExpected(
  abs: string,
  now: StatIdentity | null,
  expect: Expectation,
  opts: { ignoreCtime?: boolean } = {},
): Promise<boolean> {
  if (expect.stat !== undefined && expect.seenAtNs !== undefined) {
    if (expect.stat === null && now === null) return true;
    const doubt = { ignoreCtime: opts.ignoreCtime === true || expect.ctimeOurs === true };
    if (expect.stat && now && sameStat(expect.stat, now, opts) && !inDoubt(expect.stat, expect.seenAtNs, doubt))
      return true;
  }
  // Not conclusive: the content decides (a touch, a chmod or a same-tick write all end here).
  if (expect.blob === null) return now === null || now.type === 'dir';
  return (await diskBlob(abs, now)) === expect.blob;
}

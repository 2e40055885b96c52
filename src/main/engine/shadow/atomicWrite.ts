/**
 * The one way a restore puts bytes into the user's folder (I11, items 7 and 8 of issue 10): write a new file
 * beside the target, fsync it, and rename it into place. Never rewriting in place means a hard link (a `cp -al`
 * backup) keeps its old content, and a full disk leaves the old file whole instead of a truncated one.
 *
 * Side files are named after the transaction (`tag`) and the target, so a killed process's leftovers are found
 * again by the next command's recovery: `.NAME.~rt-TAG.new` (content not yet in place) and `.NAME.~rt-TAG.old`
 * (the replaced file, kept until the restore knows nobody wrote to it meanwhile); `.aside` holds a file a put-back
 * is about to replace or remove (putInPlace.ts).
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants as C,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  promises as fs,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import path from 'node:path';

export type SideKind = 'new' | 'old' | 'aside';

/** Longest file name most file systems take is 255 bytes; long names are shortened to a hash. */
const NAME_MAX = 255;

export function sidePath(abs: string, tag: string, kind: SideKind): string {
  const base = path.basename(abs);
  const name = `.${base}.~rt-${tag}.${kind}`;
  if (Buffer.byteLength(name) <= NAME_MAX) return path.join(path.dirname(abs), name);
  const h = createHash('sha1').update(base).digest('hex').slice(0, 16);
  return path.join(path.dirname(abs), `.~rt-${tag}-${h}.${kind}`);
}

/**
 * Write `content` to a new file (never following or reusing anything there) and fsync it. `exact`: the bits are
 * exactly `perm` (an existing file's); otherwise the umask narrows them, as for any new file. `sync: false`
 * leaves the fsync to the caller, who must make the file durable (syncFiles) before renaming it into place.
 * Returns the new file's stat data as the last write left it (a restore's staging compares it, stageRestored.ts).
 */
export async function writeNewFile(
  abs: string,
  content: Buffer,
  perm: number,
  exact: boolean,
  opts: { sync?: boolean } = {},
): Promise<BigIntStats> {
  // Synchronous calls: four thread-pool round trips per file cost more than the writes of a small file, and a
  // restore writes one per changed file (as lstatIdentity, fileIdentity.ts).
  const fd = createExclusive(abs, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, perm);
  let written: BigIntStats;
  try {
    writeAll(fd, content);
    if (exact) fchmodSync(fd, perm);
    if (opts.sync !== false) fsyncSync(fd);
    written = fstatSync(fd, { bigint: true });
  } catch (e) {
    try {
      closeSync(fd);
      dropSideFile(abs);
    } catch {
      // the first error is the one to report
    }
    throw e;
  }
  closeSync(fd);
  return written;
}

/**
 * open(2) that never reuses what is at `abs`: something there is a leftover of a killed run with this very name
 * (side files are named after their transaction), dropped, and the open tried once more. Only then: an unlink
 * first on every call was a system call per written file for a leftover that is almost never there.
 */
function createExclusive(abs: string, flags: number, perm: number): number {
  try {
    return openSync(abs, flags, perm);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    dropSideFile(abs);
    return openSync(abs, flags, perm);
  }
}

function writeAll(fd: number, content: Buffer): void {
  for (let off = 0; off < content.length;) off += writeSync(fd, content, off, content.length - off);
}

/**
 * Remove a side file (or a leftover one) if it is there. One unlink(2), synchronous: fs.rm would lstat first and
 * each call would go through the thread pool, and a restore does this for every file it writes.
 */
export function dropSideFile(abs: string): void {
  try {
    unlinkSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** dropSideFile for many at once, the waits overlapping (an unlink may wait for the file system's journal). */
export async function dropSideFiles(files: readonly string[]): Promise<void> {
  await Promise.all(
    files.map((abs) =>
      fs.unlink(abs).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      }),
    ),
  );
}

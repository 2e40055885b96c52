/**
 * Making written data durable: per file and folder (fsync), or for a whole file system at once (syncfs). One
 * module, so that every writer (objects, restores, imports) keeps the same guarantee the same way.
 */
import { execFile } from 'node:child_process';
import { close, constants as C, fsync, open, promises as fs, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { runResident } from './residentShell';
import { syncfsViaHelper } from './syncfsHelper';

/**
 * File systems whose syncfs(2) writes out every file and folder entry on them (statfs f_type). Elsewhere — FUSE,
 * network file systems — syncfs may return without the server having synced anything, while fsync of a file
 * reaches it: those are synced file by file.
 */
const SYNCFS_FILE_SYSTEMS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0x01021994, // tmpfs (memory: nothing to flush)
]);

function syncfsHonoured(path: string): boolean {
  // RETRACE_SYNCFS=0: every file and folder synced on its own (a disk that is known to lie about whole-file-system
  // flushes; the tests of the per-file path).
  if (process.env.RETRACE_SYNCFS === '0') return false;
  try {
    return SYNCFS_FILE_SYSTEMS.has(statfsSync(path).type);
  } catch {
    return false;
  }
}

let syncfsRuns: Promise<boolean> | undefined;

/**
 * Whether `path`'s file system can be made durable with one syncfs, so that a writer may leave everything it
 * writes there unsynced (git's writes too: GitRunner.withoutFsync) and sync it once before the line that names it
 * (record.ts). The file system must be one that honours syncfs, and `sync -f` must have been seen to work in this
 * process (one real syncfs, once): only then may git skip its own fsyncs, since what git wrote unsynced could not
 * be synced file by file afterwards.
 */
export async function canSyncFileSystem(path: string): Promise<boolean> {
  if (process.platform !== 'linux' || !syncfsHonoured(path)) return false;
  syncfsRuns ??= syncFileSystemsOf([path]);
  return syncfsRuns;
}

/**
 * One syncfs(2) of each file system the given folders are on: every file and folder entry written there so far is
 * on disk when it returns true. All from one `sync -f` process (GNU coreutils; Node has no syncfs binding), without
 * blocking the event loop while the disk flushes: a long-lived host (the hook server, the app) keeps answering. A
 * folder that is gone is skipped (its removal is an entry of its parent). False where `sync -f` is not available
 * (macOS, Windows, BusyBox) or a file system is not trusted (SYNCFS_FILE_SYSTEMS, RETRACE_SYNCFS=0): the caller then
 * syncs what it wrote file by file.
 */
export async function syncFileSystemsOf(folders: Iterable<string>): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  const byDevice = new Map<number, string>();
  for (const folder of folders) {
    let dev: number;
    try {
      dev = statSync(folder).dev;
    } catch {
      continue;
    }
    if (byDevice.has(dev)) continue;
    if (!syncfsHonoured(folder)) return false;
    byDevice.set(dev, folder);
  }
  if (byDevice.size === 0) return true;
  const targets = [...byDevice.values()];
  // A long-lived host's resident helper makes the call itself (syncfsHelper.ts); else `sync -f`:
  const viaHelper = await syncfsViaHelper(targets);
  if (viaHelper !== null) return viaHelper;
  // Through a resident shell (a fork of it, not of this process); if that cannot, `sync -f` started from here.
  const viaShell = await runResident('sync', ['-f', '--', ...targets], { cwd: '/', env: process.env }).catch(
    () => null,
  );
  if (viaShell) return viaShell.code === 0;
  return new Promise((resolve) => execFile('sync', ['-f', '--', ...targets], (err) => resolve(!err)));
}

/**
 * Make the contents of files written with `sync: false` durable before they are renamed into place (I11): one
 * syncfs per file system (syncFileSystemsOf), else each file fsynced, FILE_SYNC_GROUP at a time.
 */
export async function syncWrittenFiles(files: readonly string[]): Promise<void> {
  if (files.length === 0 || (await syncFileSystemsOf(new Set(files.map((f) => dirname(f)))))) return;
  for (let i = 0; i < files.length; i += FILE_SYNC_GROUP) await syncFiles(files.slice(i, i + FILE_SYNC_GROUP));
}

/**
 * Make renames, links and unlinks in these folders durable: one syncfs per file system, else each folder fsynced.
 * True when it was a syncfs, which also wrote out the content of every file there (attic.ts relies on that).
 */
export async function syncWrittenDirs(dirs: Iterable<string>): Promise<boolean> {
  const list = [...dirs];
  if (list.length === 0) return false;
  if (await syncFileSystemsOf(list)) return true;
  await syncDirs(list);
  return false;
}

/** Files fsynced at once by syncWrittenFiles' fallback: bounds the open descriptors. */
const FILE_SYNC_GROUP = 64;

/**
 * fsync several files written with `sync: false`, all issued at once: the file system commits them together
 * (one journal commit on ext4) instead of one wait per file, as a sequential loop of fsyncs would make it.
 * Each file is still fsynced: the guarantee is writeNewFile's, only the waiting is shared.
 */
export async function syncFiles(files: readonly string[]): Promise<void> {
  await Promise.all(
    files.map(async (abs) => {
      const fh = await fs.open(abs, C.O_RDWR | C.O_NOFOLLOW); // writable: Windows flushes only such a handle
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    }),
  );
}

/**
 * One round of syncs for files written with `sync: false` and the folders that got their entries: every file's
 * fsync at once, then `between` (a rename into place that needs its file durable first), then every folder's at
 * once; without `between` nothing orders them, and the files' and the folders' fsyncs all go at once (one journal
 * commit on ext4 instead of two in turn). Files that are gone are skipped (a loose object packed meanwhile). A warm
 * hook checkpoint makes its objects and its journal durable in one such round (issue 15): on ext4 that is one
 * journal commit and one disk flush where a round per file costs one each.
 */
export async function syncRound(files: readonly string[], dirs: Iterable<string>, between?: () => void): Promise<void> {
  if (!between) {
    await Promise.all([...files.map(syncFileIfExists), syncDirs(dirs)]);
    return;
  }
  await Promise.all(files.map(syncFileIfExists));
  between();
  await syncDirs(dirs);
}

/**
 * fsync one file through a read handle (loose objects are read-only; a read handle's fsync flushes the file on
 * Linux and macOS), or a writable one on Windows, which flushes only those. False when the file is gone. Plain
 * callbacks, not a FileHandle: a warm hook call syncs a handful of files, and each handle costs more than its sync.
 */
function syncFileIfExists(file: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    open(file, process.platform === 'win32' ? C.O_RDWR : C.O_RDONLY, (openErr, fd) => {
      if (openErr) return resolve(false);
      fsync(fd, (syncErr) => close(fd, () => (syncErr ? reject(syncErr) : resolve(true))));
    });
  });
}

/** syncDir on several folders at once (the waits overlap, as in syncFiles). */
export async function syncDirs(dirs: Iterable<string>): Promise<void> {
  await Promise.all([...dirs].map((d) => syncDir(d)));
}

/**
 * Make renames and unlinks in a folder durable; some platforms cannot fsync a folder (then the rename stays
 * atomic). Plain callbacks, as syncFileIfExists.
 */
export function syncDir(abs: string): Promise<void> {
  return new Promise((resolve) => {
    // Windows and some network file systems refuse to open or sync a directory: then nothing more to do.
    open(abs, 'r', (openErr, fd) => {
      if (openErr) return resolve();
      fsync(fd, () => close(fd, () => resolve()));
    });
  });
}

/**
 * Making written data durable: per file and folder (fsync), or for a whole file system at once (syncfs). One
 * module, so that every writer (objects, restores, imports) keeps the same guarantee the same way.
 */
import { spawnSync } from 'node:child_process';
import { close, constants as C, fsync, open, promises as fs } from 'node:fs';

/**
 * One syncfs(2) of the file system that holds `path`: every file and folder entry written there so far is on disk
 * when it returns true. Through GNU coreutils' `sync -f` (Node has no syncfs binding); false where that is not
 * available (macOS, Windows, BusyBox), and then the caller syncs what it wrote file by file.
 */
export function syncFileSystem(path: string): boolean {
  if (process.platform !== 'linux') return false;
  return spawnSync('sync', ['-f', path], { stdio: 'ignore' }).status === 0;
}

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
 * once. Files that are gone are skipped (a loose object packed meanwhile). A warm hook checkpoint makes its
 * objects and its journal durable in one such round (issue 15): on ext4 that is one journal commit and one
 * disk flush where a round per file costs one each.
 */
export async function syncRound(files: readonly string[], dirs: Iterable<string>, between?: () => void): Promise<void> {
  await Promise.all(files.map(syncFileIfExists));
  between?.();
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

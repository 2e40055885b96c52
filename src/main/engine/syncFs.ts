/**
 * Making written data durable: per file and folder (fsync), or for a whole file system at once (syncfs). One
 * module, so that every writer (objects, restores, imports) keeps the same guarantee the same way.
 */
import { spawn } from 'node:child_process';
import { constants as C, promises as fs, statSync } from 'node:fs';

/**
 * One syncfs(2) of the file system that holds `path`: every file and folder entry written there so far is on disk
 * when it returns true. Through GNU coreutils' `sync -f` (Node has no syncfs binding); false where that is not
 * available (macOS, Windows, BusyBox), and then the caller syncs what it wrote file by file. RETRACE_SYNCFS=0
 * makes it unavailable (the per-file path, for tests on Linux).
 */
export function syncFileSystem(path: string): Promise<boolean> {
  if (process.platform !== 'linux' || process.env.RETRACE_SYNCFS === '0') return Promise.resolve(false);
  // Not spawnSync: a long-lived host (the hook server, the app) keeps answering while the disk catches up.
  return new Promise((resolve) => {
    const child = spawn('sync', ['-f', path], { stdio: 'ignore', windowsHide: true });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

/** syncFileSystem of each file system among `paths` (one syncfs where they share one, as they usually do). */
export async function syncFileSystems(paths: readonly string[]): Promise<boolean> {
  const devices = new Map<number, string>();
  for (const p of paths) {
    const dev = statSync(p, { throwIfNoEntry: false })?.dev;
    if (dev !== undefined && !devices.has(dev)) devices.set(dev, p);
  }
  for (const p of devices.values()) if (!(await syncFileSystem(p))) return false;
  return true;
}

let syncfsWorks: Promise<boolean> | undefined;

/**
 * Whether syncFileSystem works on this host, so that a writer may leave everything it writes unsynced (git's
 * writes too: GitRunner.withoutFsync) and make it durable with one syncfs before the line that names it
 * (record.ts). Asked once per process, with a real syncfs of `path`'s file system: only an answer seen to work
 * lets git skip its own fsyncs, since what git wrote unsynced could not be synced file by file afterwards.
 */
export function canSyncFileSystem(path: string): Promise<boolean> {
  if (process.env.RETRACE_SYNCFS === '0') return Promise.resolve(false);
  syncfsWorks ??= syncFileSystem(path);
  return syncfsWorks;
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

/** syncDir on several folders at once (the waits overlap, as in syncFiles). */
export async function syncDirs(dirs: Iterable<string>): Promise<void> {
  await Promise.all([...dirs].map((d) => syncDir(d)));
}

/** Make renames and unlinks in a folder durable; some platforms cannot fsync a folder (then the rename stays atomic). */
export async function syncDir(abs: string): Promise<void> {
  let fh: fs.FileHandle | undefined;
  try {
    fh = await fs.open(abs, 'r');
    await fh.sync();
  } catch {
    // Windows and some network file systems refuse to open or sync a directory.
  } finally {
    await fh?.close().catch(() => {});
  }
}

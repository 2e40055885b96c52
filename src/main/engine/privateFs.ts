/**
 * Everything Retrace writes into its data directory is its owner's alone (PRODUCT.md I11): folders 0700,
 * files 0600 (read-only objects 0400). The data holds copies of private files and typed prompts, so another
 * local user must not read it whatever the process umask is. Every folder and file made under the data
 * directory goes through here — never a bare mkdir/writeFile/open with the default modes.
 *
 * A mode given at creation is masked by the umask, which only ever removes bits: 0700/0600 can come out
 * narrower, never wider, so no chmod after creation is needed. An existing folder keeps its bits, which is
 * why the data home itself is tightened when it is opened (`openPrivateHome`): a 0700 data home keeps
 * everything under it out of reach, including files an older version wrote with looser bits.
 */
import { appendFileSync, chmodSync, mkdirSync, openSync, promises as fs, statSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** Immutable files (git objects written by hand): read-only for the owner. */
export const PRIVATE_READONLY_MODE = 0o400;
/** What `git init --shared=` gets, so git's own files follow the same rule (git ≥ 1.6; dirs get 0700). */
export const GIT_SHARED_REPOSITORY = '0600';

// mkdir -p written out rather than Node's `recursive: true`: Node 20's never returns when mkdir(2) answers ENOENT
// under a folder that exists (a data home asked for under /proc spun one core for good, and a hook with it).
// Here a folder is made, or else its parent and then it once more; any other answer is the caller's error.

/** mkdir -p: the folders it creates are 0700; folders that exist keep their bits. */
export async function mkdirPrivate(dir: string): Promise<void> {
  const at = path.resolve(dir);
  const isDir = (): Promise<boolean> => fs.stat(at).then((st) => st.isDirectory());
  try {
    await fs.mkdir(at, PRIVATE_DIR_MODE);
    return;
  } catch (e) {
    if (errno(e) === 'EEXIST' && (await isDir())) return;
    if (errno(e) !== 'ENOENT' || path.dirname(at) === at) throw e;
  }
  await mkdirPrivate(path.dirname(at));
  try {
    await fs.mkdir(at, PRIVATE_DIR_MODE);
  } catch (e) {
    if (!(errno(e) === 'EEXIST' && (await isDir()))) throw e;
  }
}

export function mkdirPrivateSync(dir: string): void {
  const at = path.resolve(dir);
  const isDir = (): boolean => statSync(at).isDirectory();
  try {
    mkdirSync(at, PRIVATE_DIR_MODE);
    return;
  } catch (e) {
    if (errno(e) === 'EEXIST' && isDir()) return;
    if (errno(e) !== 'ENOENT' || path.dirname(at) === at) throw e;
  }
  mkdirPrivateSync(path.dirname(at));
  try {
    mkdirSync(at, PRIVATE_DIR_MODE);
  } catch (e) {
    if (!(errno(e) === 'EEXIST' && isDir())) throw e;
  }
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;

/** writeFile that creates the file 0600 (or `mode`). `flag` as for fs.writeFile ('wx' to refuse an existing one). */
export async function writeFilePrivate(
  file: string,
  data: string | Uint8Array,
  opts: { flag?: string; mode?: number } = {},
): Promise<void> {
  await fs.writeFile(file, data, { mode: opts.mode ?? PRIVATE_FILE_MODE, flag: opts.flag ?? 'w' });
}

export function writeFilePrivateSync(file: string, data: string | Uint8Array, opts: { flag?: string } = {}): void {
  writeFileSync(file, data, { mode: PRIVATE_FILE_MODE, flag: opts.flag ?? 'w' });
}

export function appendFilePrivateSync(file: string, data: string | Uint8Array): void {
  appendFileSync(file, data, { mode: PRIVATE_FILE_MODE });
}

/** open(2) with a private mode for the file it may create ('a+', 'wx', 'w' …). */
export function openPrivateSync(file: string, flags: string): number {
  return openSync(file, flags, PRIVATE_FILE_MODE);
}

export function openPrivate(file: string, flags: string): Promise<FileHandle> {
  return fs.open(file, flags, PRIVATE_FILE_MODE);
}

/**
 * Create the data home (or a folder in it) private, or tighten one that already exists with looser bits
 * (made by hand, by an older version, or under a 022 umask). Only a real folder of our own is chmodded;
 * anything else is left for the caller's own error. No-op on Windows (ACLs, not mode bits).
 */
export function openPrivateHome(dir: string): void {
  mkdirPrivateSync(dir);
  if (process.platform === 'win32') return;
  const st = statSync(dir); // a data home reached through a symlink is tightened where it really is
  if (!st.isDirectory() || st.uid !== process.getuid?.() || (st.mode & 0o077) === 0) return;
  // A folder others share on purpose (a sticky one such as /tmp, or the home folder named as the data
  // directory) is not ours to close: what Retrace creates inside it is private all the same.
  if ((st.mode & 0o1000) !== 0 || path.resolve(dir) === path.resolve(os.homedir())) return;
  // A data home its owner made read-only is left exactly as it is: the write that follows fails plainly
  // (E_DATA_DIR) and a failed command changes nothing (I7).
  if ((st.mode & 0o200) === 0) return;
  chmodSync(dir, PRIVATE_DIR_MODE);
}

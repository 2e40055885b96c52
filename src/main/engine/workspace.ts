import { createHash } from 'node:crypto';
import {
  accessSync,
  constants as fsConstants,
  existsSync,
  opendirSync,
  promises as fs,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RetraceError } from '../../shared/errors';
import { expandHome } from './dataHome';
import { openPrivateHome, writeFilePrivate } from './privateFs';

export interface WorkspaceRef {
  /** Real, absolute path of the folder. */
  root: string;
  /** `${slug(basename)}-${sha256(normalised real path)[0..32]}`. */
  id: string;
  /** Folder name, for titles. */
  name: string;
  /** `<dataHome>/workspaces/<id>`: shadow repo, logs, ledger, lock. */
  dir: string;
  /** The data home this ref was resolved against. */
  dataHome: string;
  /** Whether the folder's file system ignores case (probed once per root). */
  caseInsensitive: boolean;
}

export interface ResolveWorkspaceOptions {
  cwd?: string;
  dataHome: string;
}

/**
 * Validate a folder the user named and give it its stable identity (PRODUCT.md I7).
 * Nothing is written until the folder is known to be acceptable; then <dir>/workspace.json is created once.
 */
export async function resolveWorkspace(input: string, opts: ResolveWorkspaceOptions): Promise<WorkspaceRef> {
  if (input.trim() === '') throw new RetraceError('E_NOT_FOUND', 'no folder given');
  const absolute = path.resolve(opts.cwd ?? process.cwd(), expandHome(input));

  // Plain system calls (a hook resolves its folder on every tool call): on a loaded machine each thread-pool
  // round trip waits its turn, and these are a few short calls.
  let root: string;
  let st: Stats;
  try {
    root = realpathSync.native(absolute);
  } catch (e) {
    const gone = (e as NodeJS.ErrnoException).code === 'ENOENT' && goneWorkspaceDir(absolute, opts.dataHome) !== null;
    throw fsError(e, absolute, gone);
  }
  try {
    st = statSync(root);
  } catch (e) {
    throw fsError(e, root);
  }
  if (!st.isDirectory()) throw new RetraceError('E_NOT_A_DIRECTORY', `not a folder: ${root}`);

  assertNotSystem(root);
  const caseInsensitive = await isCaseInsensitive(root);
  await assertNotProtected(root, opts.dataHome, caseInsensitive);

  try {
    accessSync(root, fsConstants.R_OK | fsConstants.X_OK);
    opendirSync(root).closeSync();
  } catch {
    throw new RetraceError('E_UNREADABLE', `folder is not readable: ${root}`);
  }

  const id = workspaceId(root, caseInsensitive);
  const dataHome = path.resolve(opts.dataHome);
  const dir = path.join(dataHome, 'workspaces', id);
  await writeWorkspaceJson(dir, root, id);
  return { root, id, name: path.basename(root) || root, dir, dataHome, caseInsensitive };
}

/** A folder's workspace id, from its real path: `${slug(basename)}-${sha256(normalised real path)[0..32]}`. */
export function workspaceId(root: string, caseInsensitive: boolean): string {
  const normalised = caseInsensitive ? root.toLowerCase() : root;
  return `${slug(path.basename(root))}-${createHash('sha256').update(normalised).digest('hex').slice(0, 32)}`;
}

/**
 * The data folder of a folder that is gone, when it was a workspace: its sessions and checkpoints are still there.
 * The folder made again (the same path, so the same id) is that workspace again — a project deleted by mistake
 * can be restored — and `retrace move` gives them to the folder it became.
 */
export function goneWorkspaceDir(absolute: string, dataHome: string): string | null {
  let real: string;
  try {
    real = path.join(realpathSync.native(path.dirname(absolute)), path.basename(absolute));
  } catch {
    real = absolute;
  }
  // Its file system's letter case cannot be probed any more: either id will do.
  for (const ci of [false, true]) {
    const dir = path.join(path.resolve(dataHome), 'workspaces', workspaceId(real, ci));
    if (existsSync(path.join(dir, 'workspace.json'))) return dir;
  }
  return null;
}

function fsError(e: unknown, p: string, wasWorkspace = false): RetraceError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT')
    return new RetraceError(
      'E_NOT_FOUND',
      wasWorkspace
        ? `folder does not exist: ${p} (its sessions and checkpoints are kept: make the folder again, empty, to restore into it; if it was moved, \`retrace move ${p} NEW\` takes them along)`
        : `folder does not exist: ${p}`,
    );
  if (code === 'ENOTDIR') return new RetraceError('E_NOT_A_DIRECTORY', `not a folder: ${p}`);
  if (code === 'EACCES' || code === 'EPERM') return new RetraceError('E_UNREADABLE', `folder is not readable: ${p}`);
  if (code === 'ELOOP') return new RetraceError('E_NOT_FOUND', `symlink loop: ${p}`);
  return new RetraceError('E_UNREADABLE', `cannot read ${p}: ${(e as Error).message}`);
}

/** Folders that are never a workspace: the fs root, home and its ancestors, Desktop/Documents/Downloads, the data home (and the system's, assertNotSystem). */
async function assertNotProtected(root: string, dataHome: string, caseInsensitive: boolean): Promise<void> {
  const norm = (p: string): string => {
    const n = path.resolve(p).replace(/[\\/]+$/, '') || path.parse(path.resolve(p)).root;
    return caseInsensitive ? n.toLowerCase() : n;
  };
  const real = (p: string): string => {
    try {
      return realpathSync.native(p);
    } catch {
      return path.resolve(p);
    }
  };
  const me = norm(root);

  if (me === norm(path.parse(root).root)) throw protectedDir(root, 'the filesystem root');

  const home = real(os.homedir());
  if (me === norm(home)) throw protectedDir(root, 'the home folder');
  if (isInside(norm(home), me)) throw protectedDir(root, 'a folder that contains the home folder');
  for (const sub of ['Desktop', 'Documents', 'Downloads']) {
    if (me === norm(real(path.join(home, sub)))) throw protectedDir(root, `the ${sub} folder`);
  }

  const data = norm(real(dataHome));
  if (me === data || isInside(me, data)) throw protectedDir(root, 'the Retrace data folder');
}

/** Refused before anything is read in them (the letter-case probe lists the folder): see SYSTEM_DIRS. */
function assertNotSystem(root: string): void {
  if (ORDINARY_IN_SYSTEM.some((dir) => root === dir || isInside(root, dir))) return;
  for (const sys of SYSTEM_DIRS)
    if (root === sys || isInside(root, sys)) throw protectedDir(root, `a system folder (${sys})`);
}

/**
 * The kernel's own virtual file systems: their "files" are live state (a snapshot of /proc reads every process's
 * memory maps, /dev/zero never ends), never a project. Compared after symlinks are resolved (/proc/self → /proc/<pid>).
 */
const SYSTEM_DIRS = process.platform === 'win32' ? [] : ['/proc', '/sys', '/dev'];
/** Ordinary files under them: /dev/shm is a plain tmpfs (some machines keep their temporary folders there). */
const ORDINARY_IN_SYSTEM = process.platform === 'win32' ? [] : ['/dev/shm'];

function protectedDir(root: string, what: string): RetraceError {
  return new RetraceError('E_PROTECTED_DIR', `refusing to track ${what}: ${root}`);
}

/** True when `child` lies strictly inside `parent` (both normalised, no trailing separator). */
function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

const caseCache = new Map<string, boolean>();

/**
 * Probe without writing (I2): look a name of the folder's own file system up with its case flipped and see
 * whether that finds the same directory entry. The folder's own name when its parent is on the same file
 * system (a mount point's name belongs to the file system above it), else an entry of the folder, else of
 * its ancestors on the same file system; with no name that has letters anywhere, the platform default.
 */
export async function isCaseInsensitive(root: string): Promise<boolean> {
  const cached = caseCache.get(root);
  if (cached !== undefined) return cached;
  const result = (await probeCase(root)) ?? (process.platform === 'darwin' || process.platform === 'win32');
  caseCache.set(root, result);
  return result;
}

async function probeCase(root: string): Promise<boolean | null> {
  const dev = (await fs.stat(root).catch(() => null))?.dev;
  if (dev === undefined) return null;
  // The folder and its ancestors on the same file system (a mount point's name belongs to the one above).
  const dirs: string[] = [];
  for (let d = root; (await fs.stat(d).catch(() => null))?.dev === dev; d = path.dirname(d)) {
    dirs.push(d);
    if (path.dirname(d) === d) break;
  }
  if (dirs.length > 1) {
    const answer = await flippedIsSame(dirs[1]!, path.basename(root));
    if (answer !== null) return answer;
  }
  for (const d of dirs) {
    const answer = await anyEntryFlipped(d);
    if (answer !== null) return answer;
  }
  return null;
}

/** The answer of the first of a folder's entries (up to 64) that has letters, or null. */
async function anyEntryFlipped(dir: string): Promise<boolean | null> {
  const handle = await fs.opendir(dir).catch(() => null);
  if (!handle) return null;
  let seen = 0;
  try {
    for await (const e of handle) {
      const answer = await flippedIsSame(dir, e.name);
      if (answer !== null) return answer;
      if (++seen >= 64) break;
    }
  } catch {
    // unreadable: no evidence here
  }
  return null;
}

/** Whether `name` in `dir` with its case flipped is the same entry; null when the name has no letters. */
async function flippedIsSame(dir: string, name: string): Promise<boolean | null> {
  const flipped = flipCase(name);
  if (flipped === name) return null;
  const a = await fs.lstat(path.join(dir, name)).catch(() => null);
  if (!a) return null;
  const b = await fs.lstat(path.join(dir, flipped)).catch(() => null);
  return !!b && a.ino === b.ino && a.dev === b.dev;
}

function flipCase(s: string): string {
  let out = '';
  for (const ch of s) {
    const lo = ch.toLowerCase();
    out += lo === ch ? ch.toUpperCase() : lo;
  }
  return out;
}

export function slug(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  return s || 'folder';
}

async function writeWorkspaceJson(dir: string, root: string, id: string): Promise<void> {
  const file = path.join(dir, 'workspace.json');
  try {
    // Private from the data home down, also when they exist with looser bits (PRODUCT.md I11).
    for (const d of [path.dirname(path.dirname(dir)), path.dirname(dir), dir]) openPrivateHome(d);
    if (existsSync(file)) return; // else the first use: write it below
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFilePrivate(tmp, JSON.stringify({ root, id, createdAt: new Date().toISOString() }, null, 2) + '\n');
    await fs.rename(tmp, file);
  } catch (e) {
    throw new RetraceError('E_DATA_DIR', `cannot write the data folder ${dir}: ${(e as Error).message}`, { cause: e });
  }
}

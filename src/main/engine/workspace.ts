import { createHash } from 'node:crypto';
import { constants as fsConstants, promises as fs } from 'node:fs';
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

  let root: string;
  try {
    root = await fs.realpath(absolute);
  } catch (e) {
    throw fsError(e, absolute);
  }
  const st = await fs.stat(root).catch((e: unknown) => {
    throw fsError(e, root);
  });
  if (!st.isDirectory()) throw new RetraceError('E_NOT_A_DIRECTORY', `not a folder: ${root}`);

  const caseInsensitive = await isCaseInsensitive(root);
  await assertNotProtected(root, opts.dataHome, caseInsensitive);

  try {
    await fs.access(root, fsConstants.R_OK | fsConstants.X_OK);
    await (await fs.opendir(root)).close();
  } catch {
    throw new RetraceError('E_UNREADABLE', `folder is not readable: ${root}`);
  }

  const normalised = caseInsensitive ? root.toLowerCase() : root;
  const id = `${slug(path.basename(root))}-${createHash('sha256').update(normalised).digest('hex').slice(0, 32)}`;
  const dataHome = path.resolve(opts.dataHome);
  const dir = path.join(dataHome, 'workspaces', id);
  await writeWorkspaceJson(dir, root, id);
  return { root, id, name: path.basename(root) || root, dir, dataHome, caseInsensitive };
}

function fsError(e: unknown, p: string): RetraceError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new RetraceError('E_NOT_FOUND', `folder does not exist: ${p}`);
  if (code === 'ENOTDIR') return new RetraceError('E_NOT_A_DIRECTORY', `not a folder: ${p}`);
  if (code === 'EACCES' || code === 'EPERM') return new RetraceError('E_UNREADABLE', `folder is not readable: ${p}`);
  if (code === 'ELOOP') return new RetraceError('E_NOT_FOUND', `symlink loop: ${p}`);
  return new RetraceError('E_UNREADABLE', `cannot read ${p}: ${(e as Error).message}`);
}

/** Folders that are never a workspace: the fs root, home and its ancestors, Desktop/Documents/Downloads, the data home. */
async function assertNotProtected(root: string, dataHome: string, caseInsensitive: boolean): Promise<void> {
  const norm = (p: string): string => {
    const n = path.resolve(p).replace(/[\\/]+$/, '') || path.parse(path.resolve(p)).root;
    return caseInsensitive ? n.toLowerCase() : n;
  };
  const real = async (p: string): Promise<string> => fs.realpath(p).catch(() => path.resolve(p));
  const me = norm(root);

  if (me === norm(path.parse(root).root)) throw protectedDir(root, 'the filesystem root');

  const home = await real(os.homedir());
  if (me === norm(home)) throw protectedDir(root, 'the home folder');
  if (isInside(norm(home), me)) throw protectedDir(root, 'a folder that contains the home folder');
  for (const sub of ['Desktop', 'Documents', 'Downloads']) {
    if (me === norm(await real(path.join(home, sub)))) throw protectedDir(root, `the ${sub} folder`);
  }

  const data = norm(await real(dataHome));
  if (me === data || isInside(me, data)) throw protectedDir(root, 'the Retrace data folder');
}

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
 * Probe without writing: flip the case of the deepest path component that has letters and see whether the
 * flipped path is the same directory entry. Components without letters give no evidence; then the platform
 * default decides.
 */
export async function isCaseInsensitive(root: string): Promise<boolean> {
  const cached = caseCache.get(root);
  if (cached !== undefined) return cached;
  let result = process.platform === 'darwin' || process.platform === 'win32';
  let dir = root;
  while (true) {
    const base = path.basename(dir);
    const flipped = flipCase(base);
    if (flipped !== base) {
      const a = await fs.lstat(dir).catch(() => null);
      const b = await fs.lstat(path.join(path.dirname(dir), flipped)).catch(() => null);
      result = !!a && !!b && a.ino === b.ino && a.dev === b.dev;
      break;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  caseCache.set(root, result);
  return result;
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
    try {
      await fs.access(file);
      return;
    } catch {
      // first use: write it below
    }
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFilePrivate(tmp, JSON.stringify({ root, id, createdAt: new Date().toISOString() }, null, 2) + '\n');
    await fs.rename(tmp, file);
  } catch (e) {
    throw new RetraceError('E_DATA_DIR', `cannot write the data folder ${dir}: ${(e as Error).message}`, { cause: e });
  }
}

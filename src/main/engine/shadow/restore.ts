import { constants as C, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { blobSizes, readBlobs } from '../git/catFile';
import { diffTreeRaw } from '../git/diffTree';
import { objectId } from '../git/looseObject';
import { lsTree, type TreeEntry } from '../git/lsTree';
import type { GitRunner } from '../git/runner';
import { assertSafeRelPath } from '../paths';
import { foldCase, respellForTree, withOtherSpellings } from './caseInsensitive';

export interface RestoreStep {
  path: string;
  action: 'write' | 'delete';
  mode?: string;
  blob?: string;
}

export interface RestorePlan {
  steps: RestoreStep[];
  skipped: { path: string; reason: string }[];
}

const ZERO = /^0+$/;
const depth = (p: string): number => p.split('/').length;
const parentsOf = (p: string): string[] => {
  const segs = p.split('/');
  return segs.slice(0, -1).map((_, i) => segs.slice(0, i + 1).join('/'));
};

/**
 * What a restore from `fromTree` (a fresh snapshot of the disk) to `toTree` changes: exactly the paths that
 * differ (I4). A path present on disk but absent from fromTree is excluded or uncaptured, and I3 says a restore
 * never touches it: such writes are skipped with a reason, and so are writes that would have to go through or
 * replace something uncaptured.
 */
export async function planRestore(
  git: GitRunner,
  root: string,
  fromTree: string,
  toTree: string,
  paths?: readonly string[],
  caseInsensitive = false,
): Promise<RestorePlan> {
  if (paths) paths.forEach(assertSafeRelPath);
  // Case-insensitive folder: a named path also stands for its other spellings (on disk, in the checkpoint).
  if (paths && caseInsensitive) paths = await withOtherSpellings(git, root, toTree, paths);
  const raw = await diffTreeRaw(git, fromTree, toTree, paths ? { paths } : {});
  const deletes = new Set(raw.filter((r) => ZERO.test(r.newMode)).map((r) => r.path));
  // Case-insensitive folder: a deleted spelling is the disk entry a write of another spelling finds (it is
  // renamed, not replaced: caseInsensitive.ts), so that write is not blocked by it.
  const deletedFolds = new Set(caseInsensitive ? [...deletes].map(foldCase) : []);
  const deleted = (p: string): boolean => deletes.has(p) || deletedFolds.has(foldCase(p));
  const steps: RestoreStep[] = [];
  const skipped: RestorePlan['skipped'] = [];

  for (const r of raw) {
    if (deletes.has(r.path)) {
      steps.push({ path: r.path, action: 'delete' });
      continue;
    }
    const blocked = await whyBlocked(root, r.path, ZERO.test(r.oldMode), deleted);
    if (blocked) skipped.push({ path: r.path, reason: blocked });
    else steps.push({ path: r.path, action: 'write', mode: r.newMode, blob: r.newId });
  }

  if (paths) {
    // A named path with nothing to do: tell the caller why when the disk has something we do not checkpoint.
    const mentioned = new Set(raw.map((r) => r.path));
    const quiet = paths.filter((p) => ![...mentioned].some((m) => m === p || m.startsWith(p + '/')));
    const inFrom = new Set((await lsTree(git, fromTree, { paths: quiet })).map((e) => e.path));
    for (const p of quiet) {
      if (!inFrom.has(p) && (await lstatOrNull(path.join(root, p))))
        skipped.push({ path: p, reason: 'not checkpointed (excluded by the ignore rules, or too large)' });
    }
  }

  steps.sort((a, b) =>
    a.action !== b.action
      ? a.action === 'delete'
        ? -1
        : 1
      : a.action === 'delete'
        ? depth(b.path) - depth(a.path) || cmp(a.path, b.path)
        : cmp(a.path, b.path),
  );
  return { steps, skipped };
}

async function whyBlocked(
  root: string,
  rel: string,
  isNew: boolean,
  deleted: (p: string) => boolean,
): Promise<string | null> {
  for (const parent of parentsOf(rel)) {
    const st = await lstatOrNull(path.join(root, parent));
    if (!st) return null; // nothing there yet: the restore creates the folders
    if (st.isDirectory()) continue;
    if (deleted(parent)) return null; // a checkpointed file or link that the restore removes first
    return `${parent} on disk is not a folder and is not checkpointed`;
  }
  const st = await lstatOrNull(path.join(root, rel));
  if (!st) return null;
  if (st.isDirectory()) {
    // The file replaces a folder: allowed only if every entry in it is checkpointed (and so deleted first).
    const stray = await firstUncaptured(root, rel, deleted);
    return stray ? `folder ${rel} holds ${stray}, which is not checkpointed` : null;
  }
  if (isNew && !deleted(rel))
    return 'exists on disk but is not checkpointed (excluded by the ignore rules, or too large)';
  return null;
}

async function firstUncaptured(root: string, dir: string, deleted: (p: string) => boolean): Promise<string | null> {
  const entries = await fs.readdir(path.join(root, dir), { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory() && e.name.toLowerCase() !== '.git') {
      const inner = await firstUncaptured(root, rel, deleted);
      if (inner) return inner;
    } else if (!deleted(rel)) return rel;
  }
  return null;
}

/**
 * Make each listed path on disk equal to its state in `tree`: write content, exec bit or symlink; delete it when
 * the tree has no such path; remove a file or link where the tree has a folder; prune folders left empty.
 * Only paths that differ are touched, so unchanged files keep their mtime and a second run changes nothing.
 * Never writes through a symlinked parent, outside the root, or into any `.git`. Returns the changed paths.
 */
export async function applyPaths(
  git: GitRunner,
  root: string,
  tree: string,
  paths: readonly string[],
  caseInsensitive = false,
): Promise<string[]> {
  const unique = [...new Set(paths)];
  unique.forEach(assertSafeRelPath);
  const entries = new Map<string, TreeEntry>();
  for (const e of await lsTree(git, tree, { paths: unique })) entries.set(e.path, e);
  const changed = new Set<string>();

  // 1. Deletions, deepest first, then files/links standing where the tree has a folder.
  const absent = unique.filter((p) => !entries.has(p)).sort((a, b) => depth(b) - depth(a) || cmp(a, b));
  // Case-insensitive folder: a path the tree spells otherwise is the tree's file, renamed, never deleted.
  const respelled = caseInsensitive ? await respellForTree(git, root, tree, absent, changed) : new Set<string>();
  const toPrune = new Set<string>();
  for (const rel of absent) {
    if (respelled.has(rel)) continue;
    if (!(await parentsAreDirs(root, rel))) continue; // not inside our folder: nothing of ours to delete
    const st = await lstatOrNull(path.join(root, rel));
    if (st && !st.isDirectory()) {
      await fs.unlink(path.join(root, rel));
      changed.add(rel);
    }
    toPrune.add(rel);
  }
  for (const rel of unique) {
    if (entries.get(rel)?.type !== 'tree') continue;
    if (!(await parentsAreDirs(root, rel))) continue;
    const st = await lstatOrNull(path.join(root, rel));
    if (st && !st.isDirectory()) {
      await fs.unlink(path.join(root, rel));
      changed.add(rel);
    }
  }
  for (const rel of toPrune) await pruneEmpty(root, rel);

  // 2. Writes, only where the disk differs.
  const blobs = unique.map((p) => entries.get(p)).filter((e): e is TreeEntry => e?.type === 'blob');
  const sizes = await blobSizes(
    git,
    blobs.map((b) => b.id),
  );
  const pending: { entry: TreeEntry; st: Stats | null }[] = [];
  for (const entry of blobs) {
    await ensureParentDirs(root, entry.path);
    const st = await lstatOrNull(path.join(root, entry.path));
    const state = await compare(root, entry, st, sizes.get(entry.id));
    if (state === 'same') continue;
    if (state === 'mode-only') {
      await setExec(path.join(root, entry.path), st!, entry.mode === '100755');
      changed.add(entry.path);
      continue;
    }
    pending.push({ entry, st });
  }

  // Read contents in bounded batches so a large restore does not hold every blob in memory at once.
  const BATCH_BYTES = 64 * 1024 * 1024;
  for (let i = 0; i < pending.length;) {
    let bytes = 0;
    let j = i;
    while (j < pending.length && (j === i || bytes + (sizes.get(pending[j]!.entry.id) ?? 0) <= BATCH_BYTES)) {
      bytes += sizes.get(pending[j]!.entry.id) ?? 0;
      j++;
    }
    const batch = pending.slice(i, j);
    const contents = await readBlobs(
      git,
      batch.map((b) => b.entry.id),
    );
    for (const { entry, st } of batch) {
      const content = contents.get(entry.id);
      if (!content) throw new RetraceError('E_CORRUPT', `the shadow repository lacks the content of ${entry.path}`);
      await writeEntry(root, entry, st, content);
      changed.add(entry.path);
    }
    i = j;
  }
  return [...changed].sort(cmp);
}

type Comparison = 'same' | 'mode-only' | 'differs';

async function compare(
  root: string,
  entry: TreeEntry,
  st: Stats | null,
  size: number | undefined,
): Promise<Comparison> {
  if (!st) return 'differs';
  const abs = path.join(root, entry.path);
  if (entry.mode === '120000') {
    if (!st.isSymbolicLink()) return 'differs';
    const target = await fs.readlink(abs, { encoding: 'buffer' });
    return blobId(target) === entry.id ? 'same' : 'differs';
  }
  if (!st.isFile() || st.size !== size) return 'differs';
  if (blobId(await fs.readFile(abs)) !== entry.id) return 'differs';
  const isExec = (st.mode & 0o111) !== 0;
  return isExec === (entry.mode === '100755') ? 'same' : 'mode-only';
}

const blobId = (bytes: Buffer): string => objectId('blob', bytes);

async function writeEntry(root: string, entry: TreeEntry, st: Stats | null, content: Buffer): Promise<void> {
  const abs = path.join(root, entry.path);
  if (st?.isDirectory()) {
    try {
      await fs.rmdir(abs);
    } catch {
      throw new RetraceError('E_INVALID_INPUT', `cannot replace folder ${entry.path}: it is not empty`);
    }
  } else if (st && (st.isSymbolicLink() || entry.mode === '120000' || !st.isFile())) {
    await fs.unlink(abs);
  }
  if (entry.mode === '120000') {
    await fs.symlink(content, abs);
    return;
  }
  const exec = entry.mode === '100755';
  if (st?.isFile()) {
    // Rewrite in place: keeps the inode, owner and permission bits the user chose; never follows a link.
    const fh = await fs.open(abs, C.O_WRONLY | C.O_TRUNC | C.O_NOFOLLOW);
    try {
      await fh.writeFile(content);
    } finally {
      await fh.close();
    }
    const now = await fs.lstat(abs);
    if (((now.mode & 0o111) !== 0) !== exec) await setExec(abs, now, exec);
  } else {
    const fh = await fs.open(abs, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, exec ? 0o777 : 0o666);
    try {
      await fh.writeFile(content);
    } finally {
      await fh.close();
    }
  }
}

/** Like git checkout: the exec bit follows the read bits; other permission bits stay as they are. */
async function setExec(abs: string, st: Stats, exec: boolean): Promise<void> {
  const perm = st.mode & 0o7777;
  await fs.chmod(abs, exec ? perm | ((perm & 0o444) >> 2) : perm & ~0o111);
}

/** Create missing parent folders one by one; refuse a parent that is a symlink or a file (never write through). */
async function ensureParentDirs(root: string, rel: string): Promise<void> {
  for (const parent of parentsOf(rel)) {
    const abs = path.join(root, parent);
    const st = await lstatOrNull(abs);
    if (!st) await fs.mkdir(abs);
    else if (!st.isDirectory())
      throw new RetraceError(
        'E_PATH_OUTSIDE_WORKSPACE',
        `cannot write ${rel}: ${parent} is ${st.isSymbolicLink() ? 'a symlink' : 'not a folder'}`,
      );
  }
}

async function parentsAreDirs(root: string, rel: string): Promise<boolean> {
  for (const parent of parentsOf(rel)) {
    const st = await lstatOrNull(path.join(root, parent));
    if (!st || !st.isDirectory()) return false;
  }
  return true;
}

/** Remove rel (if it is an empty folder) and then each parent that became empty; stop at the first non-empty. */
async function pruneEmpty(root: string, rel: string): Promise<void> {
  let cur = rel;
  while (cur !== '') {
    try {
      const st = await fs.lstat(path.join(root, cur));
      if (!st.isDirectory()) break;
      await fs.rmdir(path.join(root, cur));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') break;
    }
    cur = cur.includes('/') ? cur.slice(0, cur.lastIndexOf('/')) : '';
  }
}

async function lstatOrNull(abs: string): Promise<Stats | null> {
  try {
    return await fs.lstat(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new RetraceError('E_UNREADABLE', `cannot read ${abs}: ${code ?? (e as Error).message}`);
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

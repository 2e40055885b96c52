import { lstatSync, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { diffTreeRaw, type RawChange } from '../git/diffTree';
import { lsTree, type TreeEntry } from '../git/lsTree';
import { diffTreesInProcess, isPlainPath, withinPaths } from '../git/treeDiff';
import type { ObjectSource } from '../git/treeWalk';
import type { GitRunner } from '../git/runner';
import { assertSafeRelPath } from '../paths';
import { foldCase, withOtherSpellings } from './caseInsensitive';

// The apply side (writing, deleting, rolling back) lives in apply.ts.
export { applyPaths, batchEnd, blobOf, type ApplyOptions, type PlacedFile } from './apply';

export interface RestoreStep {
  path: string;
  action: 'write' | 'delete';
  mode?: string;
  blob?: string;
  /** The blob the from-tree (the safety snapshot) has at this path; absent when it has none (I9 compares to it). */
  was?: string;
}

export interface RestorePlan {
  steps: RestoreStep[];
  skipped: { path: string; reason: string }[];
  /**
   * What toTree has at every path of the diff (what `ls-tree toTree -- PATHS` answers), read off the diff itself:
   * applyPaths takes it instead of asking git again. A path absent here is absent from toTree.
   */
  entries: TreeEntry[];
  /** The steps are every path where the two trees differ (none left out by the paths, none skipped). */
  whole: boolean;
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
  readers: PlanReaders = {},
): Promise<RestorePlan> {
  if (paths) paths.forEach(assertSafeRelPath);
  // Case-insensitive folder: a named path also stands for its other spellings (on disk, in the checkpoint).
  if (paths && caseInsensitive) paths = await withOtherSpellings(git, root, toTree, paths);
  const { changes: raw, whole } = await changesBetween(git, fromTree, toTree, paths, caseInsensitive, readers);
  const deletes = new Set(raw.filter((r) => ZERO.test(r.newMode)).map((r) => r.path));
  // Case-insensitive folder: a deleted spelling is the disk entry a write of another spelling finds (it is
  // renamed, not replaced: caseInsensitive.ts), so that write is not blocked by it.
  const deletedFolds = new Set(caseInsensitive ? [...deletes].map(foldCase) : []);
  const deleted = (p: string): boolean => deletes.has(p) || deletedFolds.has(foldCase(p));
  const steps: RestoreStep[] = [];
  const skipped: RestorePlan['skipped'] = [];
  const folders = new Map<string, FolderLook>();

  for (const r of raw) {
    const was = ZERO.test(r.oldMode) || r.oldMode === '040000' ? {} : { was: r.oldId };
    if (deletes.has(r.path)) {
      steps.push({ path: r.path, action: 'delete', ...was });
      continue;
    }
    const blocked = await whyBlocked(root, r.path, r.oldMode, deleted, folders);
    if (blocked) skipped.push({ path: r.path, reason: blocked });
    else steps.push({ path: r.path, action: 'write', mode: r.newMode, blob: r.newId, ...was });
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
  return { steps, skipped, entries: entriesOf(raw), whole: whole && skipped.length === 0 };
}

/** The repository's resident readers a plan may use instead of a git process of its own. */
export interface PlanReaders {
  /** Tree objects (the in-process walk, for a plan limited to paths). */
  objects?: ObjectSource;
  /** A resident `diff-tree --stdin -r --raw --no-renames` (whole trees; falls back to a process of its own). */
  rawDiff?: (a: string, b: string) => Promise<RawChange[]>;
}

/**
 * `diff-tree -r --raw --no-renames [-- PATHS]` of the two trees, through the resident diff-tree (git's own walk,
 * one pipe round trip: faster than walking the trees here over cat-file, ~25 → ~10 ms at 1,000 files), the whole
 * trees' changes kept to the paths as literal pathspecs keep them; git itself for a case-insensitive folder and
 * for any path it might read otherwise than literally; the walk here where no resident diff-tree can run. The
 * same changes every way (resident.test.ts compares them on random trees).
 */
async function changesBetween(
  git: GitRunner,
  fromTree: string,
  toTree: string,
  paths: readonly string[] | undefined,
  caseInsensitive: boolean,
  { objects, rawDiff }: PlanReaders,
): Promise<{ changes: RawChange[]; whole: boolean }> {
  const limited = (changes: RawChange[]) => ({ changes, whole: false });
  const oneProcess = () => diffTreeRaw(git, fromTree, toTree, paths ? { paths } : {});
  if (!paths) {
    const changes = await (rawDiff ? rawDiff(fromTree, toTree).catch(oneProcess) : oneProcess());
    return { changes, whole: true };
  }
  if (caseInsensitive || !paths.every(isPlainPath)) return limited(await oneProcess());
  if (rawDiff) {
    const keep = withinPaths(paths);
    return rawDiff(fromTree, toTree).then(
      (all) => {
        const changes = all.filter((c) => keep(c.path));
        return { changes, whole: changes.length === all.length };
      },
      async () => limited(await oneProcess()),
    );
  }
  return limited(await (objects ? diffTreesInProcess(objects, fromTree, toTree, paths) : oneProcess()));
}

/**
 * toTree's side of a recursive diff as ls-tree entries. A file that became a folder shows as the file deleted
 * and the folder's files added (diff-tree -r lists trees only through their files): that path is a tree.
 */
function entriesOf(raw: readonly RawChange[]): TreeEntry[] {
  const present = raw.filter((r) => !ZERO.test(r.newMode));
  const entries: TreeEntry[] = present.map((r) => ({
    mode: r.newMode,
    type: r.newMode === '160000' ? 'commit' : 'blob',
    id: r.newId,
    path: r.path,
  }));
  const folders = new Set(present.flatMap((r) => parentsOf(r.path)));
  for (const r of raw)
    if (ZERO.test(r.newMode) && folders.has(r.path))
      entries.push({ mode: '040000', type: 'tree', id: '', path: r.path });
  return entries;
}

/** Tree modes of a file or a symlink. */
const BLOB_MODES = new Set(['100644', '100755', '120000']);

/** What a plan found at a parent folder's path: many of its paths share their parents. */
type FolderLook = 'folder' | 'absent' | 'other';

async function whyBlocked(
  root: string,
  rel: string,
  /** The path's mode in fromTree, the snapshot just taken (ZERO: not in it). */
  oldMode: string,
  deleted: (p: string) => boolean,
  folders: Map<string, FolderLook>,
): Promise<string | null> {
  for (const parent of parentsOf(rel)) {
    let look = folders.get(parent);
    if (!look) {
      const st = await lstatOrNull(path.join(root, parent));
      look = !st ? 'absent' : st.isDirectory() ? 'folder' : 'other';
      folders.set(parent, look);
    }
    if (look === 'absent') return null; // nothing there yet: the restore creates the folders
    if (look === 'folder') continue;
    if (deleted(parent)) return null; // a checkpointed file or link that the restore removes first
    return `${parent} on disk is not a folder and is not checkpointed`;
  }
  // A file or symlink there in the snapshot: nothing uncaptured was in the way, and a change since is the write's to
  // find (it checks the path once more, apply.ts, I9).
  if (BLOB_MODES.has(oldMode)) return null;
  const st = await lstatOrNull(path.join(root, rel));
  if (!st) return null;
  if (st.isDirectory()) {
    // The file replaces a folder: allowed only if every entry in it is checkpointed (and so deleted first).
    const stray = await firstUncaptured(root, rel, deleted);
    return stray ? `folder ${rel} holds ${stray}, which is not checkpointed` : null;
  }
  if (ZERO.test(oldMode) && !deleted(rel))
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

async function lstatOrNull(abs: string): Promise<Stats | null> {
  try {
    // Synchronous, as lstatIdentity (fileIdentity.ts) says why.
    return lstatSync(abs, { throwIfNoEntry: false }) ?? null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new RetraceError('E_UNREADABLE', `cannot read ${abs}: ${code ?? (e as Error).message}`);
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

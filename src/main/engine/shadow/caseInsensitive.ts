/**
 * Case-insensitive folders (the macOS and Windows defaults; PRODUCT.md I13), for snapshot.ts, treeEdit.ts and
 * restore.ts. On such a disk `README.md` and `readme.md` name one file, spelled on disk as it was last created
 * or renamed. The shadow repository compares names exactly (core.ignoreCase stays false: with it git keeps the
 * index's old spelling and hides a case-only rename from `ls-files --others`, which is how a rename shows up
 * here), so these rules keep the trees to one entry per file, spelled as on disk:
 *  - snapshot: a new name that is another spelling of an index entry (the same file) replaces that entry;
 *    when the scan is not settled, index entries that are spellings of one file are reduced to the disk's;
 *  - restore: a path the target tree holds under another spelling is renamed to that spelling, never deleted
 *    (deleting either spelling deletes the only copy), and folders too.
 */
import { lstatSync, promises as fs, readdirSync } from 'node:fs';
import path from 'node:path';
import { listIndex, listIndexAnyCase } from '../git/lsFiles';
import { lsTree } from '../git/lsTree';
import type { GitRunner } from '../git/runner';

/** Up to this many new paths are looked up by name in the index; more, and it is listed whole. */
const MAX_NAMED = 200;

export function foldCase(p: string): string {
  return p.normalize('NFC').toLowerCase();
}

/**
 * `rel` spelled as the folder stores it (each segment as its directory lists it), or null when it is not
 * there. An exact match wins, so a case-sensitive folder inside a case-insensitive one answers correctly.
 */
export function spelledOnDisk(root: string, rel: string): string | null {
  let dir = root;
  const out: string[] = [];
  for (const seg of rel.split('/')) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return null;
    }
    const want = foldCase(seg);
    const name = names.includes(seg) ? seg : names.find((n) => foldCase(n) === want);
    if (name === undefined) return null;
    // As git names it: on macOS core.precomposeUnicode turns a decomposed name (HFS+) into NFC.
    out.push(process.platform === 'darwin' ? name.normalize('NFC') : name);
    dir = path.join(dir, name);
  }
  return out.join('/');
}

/**
 * `paths` and their other spellings on disk and in `tree` (a file restore names a path one way; the disk and
 * the checkpoint may each spell it another, and its rename is part of the restore).
 */
export async function withOtherSpellings(
  git: GitRunner,
  root: string,
  tree: string,
  paths: readonly string[],
): Promise<string[]> {
  const out = new Set(paths);
  const wanted = new Set(paths.map(foldCase));
  for (const p of paths) {
    const disk = spelledOnDisk(root, p);
    if (disk !== null) out.add(disk);
  }
  for (const p of treePaths(await lsTree(git, tree, { recursive: true }))) if (wanted.has(foldCase(p))) out.add(p);
  return [...out];
}

/** Every path of a recursive listing and every folder on the way. */
function treePaths(entries: readonly { path: string }[]): Set<string> {
  const all = new Set<string>();
  for (const e of entries) {
    const segs = e.path.split('/');
    for (let i = 1; i <= segs.length; i++) all.add(segs.slice(0, i).join('/'));
  }
  return all;
}

/** Whether two workspace paths are one directory entry (two spellings of one file on this disk). */
function sameEntry(root: string, a: string, b: string): boolean {
  const x = lstatSync(path.join(root, a), { throwIfNoEntry: false });
  const y = lstatSync(path.join(root, b), { throwIfNoEntry: false });
  return !!x && !!y && x.ino === y.ino && x.dev === y.dev;
}

/**
 * Index entries that are stale spellings of files on disk: `drop` them, `add` the disk's spelling instead.
 * `fresh`: the paths the scan found new (spelled as on disk). `checkIndex`: also reduce spellings the index
 * holds twice (left by versions before this rule). Lists the index only when there is something to check.
 */
export async function staleSpellings(
  git: GitRunner,
  root: string,
  fresh: readonly string[],
  checkIndex: boolean,
): Promise<{ drop: string[]; add: string[] }> {
  if (fresh.length === 0 && !checkIndex) return { drop: [], add: [] };
  // Usually a few new paths: ask for just their spellings rather than list an index of 100k entries (git's
  // icase folds ASCII letters only, so other names take the whole listing).
  const byName = !checkIndex && fresh.length <= MAX_NAMED && fresh.every((p) => /^[\x20-\x7e]*$/.test(p));
  const entries = byName ? await listIndexAnyCase(git, fresh) : await listIndex(git);
  const byFold = new Map<string, string[]>();
  for (const p of entries) {
    const k = foldCase(p);
    const group = byFold.get(k);
    if (group) group.push(p);
    else byFold.set(k, [p]);
  }
  const drop = new Set<string>();
  const add = new Set<string>();
  for (const p of fresh) {
    for (const old of byFold.get(foldCase(p)) ?? []) if (old !== p && sameEntry(root, old, p)) drop.add(old);
  }
  if (checkIndex) {
    for (const group of byFold.values()) {
      if (group.length < 2) continue;
      const disk = spelledOnDisk(root, group[0]!);
      if (disk === null) continue; // gone: the scan's deleted list removes every spelling
      for (const old of group) if (old !== disk && sameEntry(root, old, disk)) drop.add(old);
      if (!group.includes(disk)) add.add(disk);
    }
  }
  return { drop: [...drop], add: [...add] };
}

/**
 * Before a restore deletes `absent` paths (not in `tree`): each one the tree holds under another spelling
 * (file or folder) is renamed on disk to the tree's spelling, folders first, and must not be deleted: on this
 * disk it is the tree's file. Returns those paths; `changed` gets both spellings of each renamed one.
 */
export async function respellForTree(
  git: GitRunner,
  root: string,
  tree: string,
  absent: readonly string[],
  changed: Set<string>,
): Promise<Set<string>> {
  const keep = new Set<string>();
  if (absent.length === 0) return keep;
  const inTree = treePaths(await lsTree(git, tree, { recursive: true }));
  const treeSpelling = new Map<string, string>();
  for (const p of inTree) treeSpelling.set(foldCase(p), p);

  for (const rel of absent) {
    const wanted = treeSpelling.get(foldCase(rel));
    if (wanted === undefined || wanted === rel) continue;
    keep.add(rel);
    // Top down: each segment whose disk spelling the tree does not hold takes the tree's spelling.
    const segs = wanted.split('/');
    for (let i = 1; i <= segs.length; i++) {
      const target = segs.slice(0, i).join('/');
      const disk = spelledOnDisk(root, target);
      if (disk === null || disk === target || inTree.has(disk)) continue;
      await fs.rename(path.join(root, disk), path.join(root, target));
      changed.add(rel);
      changed.add(wanted);
    }
  }
  return keep;
}

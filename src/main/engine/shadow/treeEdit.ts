/**
 * The warm snapshot: the last snapshot's tree with the hinted paths replaced by what is on disk now, built
 * without git's index (engineer E; chosen by warmScope.ts, called from snapshot.ts).
 *
 * At 100k files every git command that touches the index reads and checksums ~8 MB, and update-index and
 * write-tree also rewrite it: ~200 ms of a warm checkpoint. Here only the trees along the hinted paths are
 * read (one `cat-file --batch` process) and only the changed blobs and trees are written (loose objects,
 * written directly), so the cost follows the number of changed paths, not the size of the folder.
 *
 * Each hinted path gets the verdict a full scan would give it: a file or symlink becomes a blob of its bytes
 * and mode; a missing path leaves the tree; a path the last tree did not have is captured only if neither
 * the hard exclusions nor the folder's ignore rules exclude it (check-ignore, as the full scan's walk of
 * nested repositories asks); over the size cap it is reported and left out. The shadow index is left as it
 * was: it no longer matches the tree, so warmScope.ts records which tree it does match, and the next full
 * scan compares the disk with it and brings both up to date — a full scan never trusts a warm tree.
 *
 * Returns null (the caller runs a full scan) when a hint does not fit: a directory, or a path inside another
 * hinted path.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { NotCaptured } from '../../../shared/model';
import { ignoredAmong } from '../git/checkIgnore';
import { syncLooseObjects, writeLooseObjectSync } from '../git/looseObject';
import { EMPTY_TREE } from '../git/objects';
import { ObjectReader, type GitObject } from '../git/objectReader';
import type { GitRunner } from '../git/runner';
import { encodeTree, isTreeMode, parseTree, TREE_MODE, type TreeEntry } from '../git/treeObject';
import { foldCase } from './caseInsensitive';
import { lstatOrNull, NameTooLong, parentChecker } from './diskChecks';
import { resolveHints } from './resolveHints';

export interface TreeEditContext {
  git: GitRunner;
  root: string;
  sizeCap: number;
  isExcluded: (rel: string) => boolean;
  /** The tree of the last completed snapshot. */
  baseTree: string;
  /** Sorted, unique, plain workspace-relative paths (warmScope.ts checked them), as the hints named them. */
  paths: readonly string[];
  /** The folder ignores case: paths are judged as the disk spells them (caseInsensitive.ts). */
  caseInsensitive: boolean;
  /** The repository's resident object reader, when it has one: no cat-file process per warm call. */
  objects?: ObjectSource;
  /**
   * Given: the objects are written without a sync and their ids added here; the caller makes them durable before
   * anything names them (record.ts: together with its commit and its journal, in one round). Else synced here.
   */
  unsynced?: string[];
  /** Filled with each path's plain verdict: true when it became a blob, false when it was absent (scanPile.ts). */
  captured?: Map<string, boolean>;
}

/** Reads objects by id (a ResidentReader). */
export interface ObjectSource {
  read(id: string): Promise<GitObject | null>;
}

/** What a path is on disk now: a blob to record, or nothing to record. */
type Seen = { kind: 'blob'; mode: string; bytes: Buffer } | { kind: 'gone'; absent?: true };

interface Change {
  /** The leaf's new state, when a hinted path ends here. */
  seen?: Seen;
  children: Map<string, Change>;
}

export async function editTree(ctx: TreeEditContext): Promise<{ tree: string; notCaptured: NotCaptured[] } | null> {
  // Through a symlink, below a file, in another spelling: the paths a full scan would judge (resolveHints.ts).
  const paths = resolveHints(ctx.root, ctx.paths, ctx.caseInsensitive);
  if (paths === null) return null;
  const named = new Set(paths);
  const insideAnother = (p: string): boolean => {
    for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) if (named.has(p.slice(0, i))) return true;
    return false;
  };
  if (paths.some(insideAnother)) return null;

  const notCaptured: NotCaptured[] = [];
  const parentOk = parentChecker(ctx.root);
  const seen = new Map<string, Seen>();
  for (const rel of paths) {
    let st;
    try {
      st = parentOk(rel) ? lstatOrNull(ctx.root, rel) : null;
    } catch (e) {
      if (!(e instanceof NameTooLong)) throw e;
      notCaptured.push({ path: rel, reason: 'name-too-long' });
      seen.set(rel, { kind: 'gone' });
      continue;
    }
    if (st === null) seen.set(rel, { kind: 'gone', absent: true });
    else if (st.isDirectory()) return null;
    else if (st.isSymbolicLink()) seen.set(rel, { kind: 'blob', mode: '120000', bytes: readLink(ctx.root, rel) });
    else if (!st.isFile())
      seen.set(rel, { kind: 'gone' }); // fifo, socket: cannot be checkpointed
    else if (st.size > ctx.sizeCap) {
      notCaptured.push({ path: rel, reason: 'too-large', size: st.size });
      seen.set(rel, { kind: 'gone' });
    } else {
      const bytes = readFileOrNull(ctx.root, rel);
      const mode = (st.mode & 0o100) !== 0 ? '100755' : '100644';
      seen.set(rel, bytes === null ? { kind: 'gone' } : { kind: 'blob', mode, bytes });
    }
  }

  const trees = new TreeReads(ctx.git, ctx.objects);
  try {
    // A path the last tree spells otherwise was renamed by case only: the full scan replaces the old spelling.
    if (ctx.caseInsensitive) for (const rel of paths) if (await trees.hasOtherSpelling(ctx.baseTree, rel)) return null;
    // New paths (not in the last tree) are subject to the exclusions and ignore rules; tracked ones are not.
    const fresh: string[] = [];
    for (const [rel, s] of seen) {
      if (s.kind !== 'blob' || (await trees.hasFile(ctx.baseTree, rel))) continue;
      if (ctx.isExcluded(rel)) seen.set(rel, { kind: 'gone' });
      else fresh.push(rel);
    }
    for (const rel of await ignoredAmong(ctx.git, fresh)) seen.set(rel, { kind: 'gone' });

    const rootChange: Change = { children: new Map() };
    for (const [rel, s] of seen) {
      let node = rootChange;
      for (const seg of rel.split('/')) {
        const key = Buffer.from(seg, 'utf8').toString('latin1');
        let next = node.children.get(key);
        if (!next) node.children.set(key, (next = { children: new Map() }));
        node = next;
      }
      node.seen = s;
    }
    // The objects are written first and made durable together (before any log line can name them): here, or by
    // the caller with more of its own (ctx.unsynced).
    const written: string[] = [];
    const tree = (await rebuild(ctx.git.gitDir, trees, ctx.baseTree, rootChange, written)) ?? EMPTY_TREE;
    if (tree === EMPTY_TREE) written.push(writeLooseObjectSync(ctx.git.gitDir, 'tree', Buffer.alloc(0)));
    if (ctx.captured)
      for (const [rel, s] of seen)
        if (s.kind === 'blob') ctx.captured.set(rel, true);
        else if (s.absent) ctx.captured.set(rel, false);
    if (ctx.unsynced) ctx.unsynced.push(...written);
    else await syncLooseObjects(ctx.git.gitDir, written);
    notCaptured.sort((a, b) => (a.path < b.path ? -1 : 1));
    return { tree, notCaptured };
  } finally {
    trees.close();
  }
}

/**
 * The new id of the tree `base` (null: the directory did not exist) after `change`; null when it is empty. Its
 * objects are written in plain system calls, unsynced (a few small files: no thread-pool round trip each), and
 * synced together at the end of editTree or by its caller.
 */
async function rebuild(
  gitDir: string,
  trees: TreeReads,
  base: string | null,
  change: Change,
  written: string[],
): Promise<string | null> {
  const entries = new Map<string, TreeEntry>();
  for (const e of base ? await trees.entries(base) : []) entries.set(e.name.toString('latin1'), e);
  for (const [key, child] of change.children) {
    const name = Buffer.from(key, 'latin1');
    if (child.seen) {
      if (child.seen.kind === 'gone') entries.delete(key);
      else {
        const id = writeLooseObjectSync(gitDir, 'blob', child.seen.bytes);
        written.push(id);
        entries.set(key, { mode: child.seen.mode, name, id });
      }
    } else {
      const old = entries.get(key);
      const id = await rebuild(gitDir, trees, old && isTreeMode(old.mode) ? old.id : null, child, written);
      if (id === null) entries.delete(key);
      else entries.set(key, { mode: TREE_MODE, name, id });
    }
  }
  if (entries.size === 0) return null; // git records no empty directories
  const list = [...entries.values()];
  const id = writeLooseObjectSync(gitDir, 'tree', encodeTree(list));
  written.push(id);
  remember(gitDir, id, list);
  return id;
}

/**
 * Parsed trees by repository and id, kept across snapshots of this process: a tree id names its content, so
 * an entry can never be stale (and per repository, it was there when read or written). A long-lived process
 * (the app, the hook server) then edits the same paths again without starting git at all. Bounded: the
 * oldest entries go first.
 */
const knownTrees = new Map<string, TreeEntry[]>();
const KNOWN_TREES_MAX = 4096;

function remember(gitDir: string, id: string, entries: TreeEntry[]): void {
  const key = `${gitDir}\0${id}`;
  knownTrees.delete(key);
  knownTrees.set(key, entries);
  if (knownTrees.size > KNOWN_TREES_MAX) knownTrees.delete(knownTrees.keys().next().value!);
}

/** Tree reads for one snapshot: from knownTrees, else through one cat-file process started on the first miss. */
class TreeReads {
  private reader: ObjectReader | null = null;

  constructor(
    private readonly git: GitRunner,
    private readonly resident?: ObjectSource,
  ) {}

  async entries(id: string): Promise<TreeEntry[]> {
    const known = knownTrees.get(`${this.git.gitDir}\0${id}`);
    if (known) return known;
    const o = this.resident
      ? await this.resident.read(id)
      : await (this.reader ??= ObjectReader.open(this.git)).read(id);
    if (!o || o.type !== 'tree') throw new Error(`tree ${id} is missing from the shadow repository`);
    const entries = parseTree(o.body);
    remember(this.git.gitDir, id, entries);
    return entries;
  }

  /** Whether `rel` is a file (blob, symlink or gitlink) in `tree`. */
  async hasFile(tree: string, rel: string): Promise<boolean> {
    let id = tree;
    const segs = rel.split('/');
    for (let i = 0; i < segs.length; i++) {
      const name = Buffer.from(segs[i]!, 'utf8');
      const e = (await this.entries(id)).find((x) => x.name.equals(name));
      if (!e) return false;
      if (i === segs.length - 1) return !isTreeMode(e.mode);
      if (!isTreeMode(e.mode)) return false;
      id = e.id;
    }
    return false;
  }

  /** Whether `tree` holds `rel`, or a folder on its way, under a spelling that differs only in case. */
  async hasOtherSpelling(tree: string, rel: string): Promise<boolean> {
    let id = tree;
    for (const seg of rel.split('/')) {
      const name = Buffer.from(seg, 'utf8');
      const entries = await this.entries(id);
      const want = foldCase(seg);
      if (entries.some((x) => !x.name.equals(name) && foldCase(x.name.toString('utf8')) === want)) return true;
      const e = entries.find((x) => x.name.equals(name));
      if (!e || !isTreeMode(e.mode)) return false;
      id = e.id;
    }
    return false;
  }

  close(): void {
    this.reader?.close();
  }
}

// The hinted files are read in plain system calls, as they were looked at (lstatOrNull): a few per hook call.
function readLink(root: string, rel: string): Buffer {
  return readlinkSync(path.join(root, rel), { encoding: 'buffer' });
}

function readFileOrNull(root: string, rel: string): Buffer | null {
  try {
    return readFileSync(path.join(root, rel));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null; // deleted between lstat and read
    throw new RetraceError('E_UNREADABLE', `cannot read ${rel}: ${code === 'EACCES' ? 'permission denied' : code}`);
  }
}

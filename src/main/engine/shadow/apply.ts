/**
 * Make listed paths on disk equal to their state in a tree (the file half of restore, undo and rollback), so
 * that nothing another program writes meanwhile is lost (I9) and nothing is ever half-written (I11):
 *
 * - every file is written beside its target, fsynced, and renamed into place (atomicWrite.ts): a hard link to
 *   the old file keeps the old content, a full disk leaves the old file whole; a file taken back from the attic
 *   whose content a syncfs already wrote out is renamed in as it is;
 * - right before a path is replaced or deleted, it is compared with what the caller expects it to hold
 *   (`expect`, fileIdentity.ts); a difference stops the run (or, for a rollback, leaves that path alone);
 * - the replaced file is not dropped at once: it stays linked as a side file until every path is written
 *   (deleted files: until every deletion is done), and is then checked again, so a write that reached it through
 *   a descriptor opened before the rename is seen; such a file is put back as it is now and the run stops; one
 *   that passes is kept in the attic for a later restore to put back (attic.ts), or dropped;
 * - a failure undoes what this run did, from those side files (no new disk space needed).
 *
 * What remains, honestly: a program that opened a file before our rename and writes to it only after the final
 * check writes into the replaced file, which is no longer in the folder; and a program that replaces a file
 * between our last check and our rename (microseconds) has its version replaced. Both need a writer that acts
 * inside a window of microseconds to a few milliseconds and are not detectable without OS-level leases.
 */
import { lchownSync, linkSync, lstatSync, promises as fs, renameSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { errnoFault, fault, testHook } from '../faults';
import { blobSizes, readBlobs } from '../git/catFile';
import type { ResidentReader } from '../git/residentReader';
import { lsTree, type TreeEntry } from '../git/lsTree';
import type { GitRunner } from '../git/runner';
import { assertSafeRelPath } from '../paths';
import { dropSideFile, dropSideFiles, sidePath, writeNewFile } from './atomicWrite';
import { syncWrittenDirs, syncWrittenFiles } from '../syncFs';
import { step } from '../stepTrace';
import {
  diskBlob,
  lstatIdentity,
  lstatWithLinks,
  nowNs,
  stillAsExpected,
  withFineness,
  type Expectation,
  type StatIdentity,
} from './fileIdentity';
import type { Attic } from './attic';
import { respellForTree } from './caseInsensitive';
import { fsError, onPath } from './fsErrors';
import { NO_HARD_LINKS, putInPlace, relKept, removeIfStill } from './putInPlace';

export interface ApplyOptions {
  /** Names this run's side files, so that a killed run's leftovers can be found (default: random). */
  tag?: string;
  /** What a path must still hold when it is about to be replaced or deleted; undefined: no check. */
  expect?: (rel: string) => Expectation | undefined;
  /** A path that no longer holds what `expect` says: 'stop' (E_CHANGED_DURING_RESTORE) or 'keep' it as it is. */
  onChanged?: 'stop' | 'keep';
  /** Collects the paths left alone under onChanged 'keep', and side files kept under a visible name. */
  kept?: string[];
  /** The folder ignores case: a path the tree spells otherwise is the tree's file, renamed, never deleted. */
  caseInsensitive?: boolean;
  /**
   * The tree's entries for the paths, when the caller has them already (a restore's plan, RestorePlan.entries):
   * no ls-tree. A listed path without an entry is absent from the tree.
   */
  entries?: readonly TreeEntry[];
  /** Sizes of the tree's blobs the caller has already (the free-space check): no cat-file for those. */
  blobSizes?: ReadonlyMap<string, number>;
  /** The repository's resident reader (ShadowRepo's): contents and sizes through it, no git process per apply. */
  objects?: Pick<ResidentReader, 'read' | 'info'>;
  /**
   * Blob contents asked for before the apply started (ShadowRepo.readAhead: a restore asks once its plan is made,
   * so the reading overlaps the safety checkpoint). Each is taken out of the map as it is used.
   */
  readAhead?: Map<string, Promise<Buffer | null>>;
  /**
   * Work to run once every file is in place, alongside the final settle (its checks, drops and sync are mostly
   * waits on the disk): a restore stages what it wrote into the shadow index (stageRestored.ts). Must not throw.
   */
  alongsideSettle?: () => Promise<unknown>;
  /** Collects each file and symlink this run put in place, with what it was when written (stageRestored.ts). */
  placed?: Map<string, PlacedFile>;
  /**
   * Where a replaced file, once checked, is kept instead of dropped, and where kept files of earlier restores are
   * taken from instead of writing new ones (attic.ts).
   */
  attic?: Pick<Attic, 'keep' | 'take' | 'keptAreDurable'>;
}

/**
 * A file or symlink an apply wrote and renamed into place: its blob and mode, its stat data as written, and as it
 * was right after the rename (the same system-call turn: nothing of this process ran in between).
 */
export interface PlacedFile {
  blob: string;
  mode: string;
  written: BigIntStats;
  placed: BigIntStats;
}

type Done =
  | { kind: 'created'; rel: string; blob: string }
  | { kind: 'replaced'; rel: string; blob: string; backup: Backup | null }
  | { kind: 'removed'; rel: string; backup: Backup | null; link?: Buffer }
  | { kind: 'chmod'; rel: string; mode: number }
  | { kind: 'mkdir'; rel: string }
  | { kind: 'rmdir'; rel: string; mode: number };

/** A side file written by stage(), not yet in place. */
interface Staged {
  entry: TreeEntry;
  tmp: string;
  /** A regular file (fsynced before the rename); a symlink has no content of its own to sync. */
  file: boolean;
  /** Its stat data once written. */
  written: BigIntStats;
  /** A kept file of an earlier restore (attic.ts), not written by this run: never dropped by it. */
  reused?: boolean;
  /** Its content is on disk already (a kept file a syncfs wrote out since, attic.ts): no sync before the rename. */
  durable?: boolean;
}

interface Backup {
  abs: string;
  /** What the file was when we replaced it (stat and content), to see a write that reached it afterwards. */
  was: Expectation;
  settled?: boolean;
}

const depth = (p: string): number => p.split('/').length;
const parentsOf = (p: string): string[] => {
  const segs = p.split('/');
  return segs.slice(0, -1).map((_, i) => segs.slice(0, i + 1).join('/'));
};
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Contents are read and written in batches of at most this many bytes: a large restore never holds them all. */
const READ_BATCH_BYTES = 64 * 1024 * 1024;

/** The end (exclusive) of the batch that starts at `start`: at least one item, then up to READ_BATCH_BYTES. */
export function batchEnd<T>(items: readonly T[], bytesOf: (item: T) => number, start = 0): number {
  if (start >= items.length) return start;
  let bytes = bytesOf(items[start]!);
  let end = start + 1;
  while (end < items.length && bytes + bytesOf(items[end]!) <= READ_BATCH_BYTES) bytes += bytesOf(items[end++]!);
  return end;
}

export function changedError(rels: string[], extra = ''): RetraceError {
  const shown = rels.slice(0, 5).join(', ') + (rels.length > 5 ? `, … (${rels.length})` : '');
  return new RetraceError(
    'E_CHANGED_DURING_RESTORE',
    `${shown} changed while the restore ran and was left as it is now${extra}`,
  );
}

/** One run of applyPaths: what it did, so that it can be undone, and its side files. */
class ApplyRun {
  readonly done: Done[] = [];
  readonly dirs = new Set<string>();
  /** Folders this run looked at or made for its writes (mkdirs). */
  private readonly folders = new Set<string>();
  private readonly temps = new Set<string>();
  private readonly tag: string;

  constructor(
    private readonly root: string,
    private readonly opts: ApplyOptions,
  ) {
    this.tag = opts.tag ?? Math.random().toString(36).slice(2, 10);
  }

  get caseInsensitive(): boolean {
    return this.opts.caseInsensitive === true;
  }

  get knownSizes(): ReadonlyMap<string, number> | undefined {
    return this.opts.blobSizes;
  }

  get objects(): Pick<ResidentReader, 'read' | 'info'> | undefined {
    return this.opts.objects;
  }

  get readAhead(): Map<string, Promise<Buffer | null>> | undefined {
    return this.opts.readAhead;
  }

  /**
   * The entries an earlier restore's kept file holds exactly (attic.ts), staged as that file: no content to read or
   * write. Synced and placed as written ones are.
   */
  async stageKept(entries: readonly TreeEntry[]): Promise<Staged[]> {
    const attic = this.opts.attic;
    const out: Staged[] = [];
    if (!attic) return out;
    for (const entry of entries) {
      if (entry.mode !== '100644' && entry.mode !== '100755') continue;
      // Its folders first (looked at once per run, as for a written file): a taken file then only moves.
      await this.mkdirs(entry.path);
      const taken = await attic.take(entry.path, entry.id, entry.mode === '100755');
      if (!taken) continue;
      // As the staging compares it (inode, size, mtime: unchangedSinceWritten), the chmod of take changed nothing.
      out.push({ entry, tmp: taken.file, file: true, written: taken.stat, reused: true, durable: taken.durable });
    }
    return out;
  }

  abs(rel: string): string {
    return path.join(this.root, rel);
  }

  /** True when rel may be replaced or deleted now; false when it is to be kept ('keep'); throws on 'stop'. */
  private async guard(rel: string, now: StatIdentity | null): Promise<{ ok: boolean; expect?: Expectation }> {
    const expect = this.opts.expect?.(rel);
    if (!expect || (await stillAsExpected(this.abs(rel), now, expect)))
      return { ok: true, ...(expect ? { expect } : {}) };
    if (this.opts.onChanged === 'keep') {
      this.opts.kept?.push(rel);
      return { ok: false };
    }
    throw changedError([rel]);
  }

  /** What the replaced file is, to compare it with later; null when nothing need be compared. */
  private async backupOf(abs: string, rel: string, now: StatIdentity, expect?: Expectation): Promise<Backup | null> {
    const backup = sidePath(abs, this.tag, 'old');
    try {
      linkBeside(abs, backup);
    } catch (e) {
      if (NO_HARD_LINKS.has((e as NodeJS.ErrnoException).code ?? '')) return null;
      throw fsError(e, rel, 'keep the old version of');
    }
    this.dirs.add(path.dirname(abs));
    return { abs: backup, was: { blob: expect?.blob ?? null, stat: withFineness(now, abs), seenAtNs: nowNs() } };
  }

  async remove(rel: string): Promise<void> {
    const abs = this.abs(rel);
    const now = await lstatIdentity(abs);
    if (!now || now.type === 'dir') return;
    const g = await this.guard(rel, now);
    if (!g.ok) return;
    if (now.type === 'file') {
      const backup = sidePath(abs, this.tag, 'old');
      dropSideFile(backup);
      await onPath(rel, 'delete', async () => renameSync(abs, backup));
      this.done.push({
        kind: 'removed',
        rel,
        backup: { abs: backup, was: { blob: g.expect?.blob ?? null, stat: withFineness(now, abs), seenAtNs: nowNs() } },
      });
    } else {
      const link = now.type === 'link' ? await fs.readlink(abs, { encoding: 'buffer' }) : undefined;
      await onPath(rel, 'delete', () => fs.unlink(abs));
      this.done.push({ kind: 'removed', rel, backup: null, ...(link ? { link } : {}) });
    }
    this.dirs.add(path.dirname(abs));
  }

  async mkdirs(rel: string): Promise<void> {
    for (const parent of parentsOf(rel)) {
      // Looked at once per run: the files of a restore share their folders, and an lstat of each parent of each
      // file was a tenth of the writes' time. A folder swapped for a symlink within the run's milliseconds is
      // the same race as one swapped between a single look and the open after it.
      if (this.folders.has(parent)) continue;
      const abs = this.abs(parent);
      const st = await lstatIdentity(abs);
      if (!st) {
        await onPath(parent, 'create folder', () => fs.mkdir(abs));
        this.done.push({ kind: 'mkdir', rel: parent });
        this.dirs.add(path.dirname(abs));
        this.folders.add(parent);
      } else if (st.type === 'dir') this.folders.add(parent);
      else
        throw new RetraceError(
          'E_PATH_OUTSIDE_WORKSPACE',
          `cannot write ${rel}: ${parent} is ${st.type === 'link' ? 'a symlink' : 'not a folder'}`,
        );
    }
  }

  async chmodExec(rel: string, exec: boolean): Promise<void> {
    const abs = this.abs(rel);
    const st = await fs.lstat(abs);
    const perm = st.mode & 0o7777;
    await onPath(rel, 'change the mode of', () => fs.chmod(abs, withExec(perm, exec)));
    this.done.push({ kind: 'chmod', rel, mode: perm });
  }

  /**
   * The first half of a write: `content` into a new side file beside rel (not yet fsynced: the caller syncs a
   * group of them at once, syncStaged).
   */
  async stage(entry: TreeEntry, content: Buffer): Promise<Staged> {
    const rel = entry.path;
    const abs = this.abs(rel);
    await this.mkdirs(rel);
    await testHook('apply:before-write', abs);
    const before = await lstatIdentity(abs);
    const tmp = sidePath(abs, this.tag, 'new');
    this.temps.add(tmp);
    if (entry.mode === '120000') {
      dropSideFile(tmp);
      await onPath(rel, 'write', () => fs.symlink(content, tmp));
      return { entry, tmp, file: false, written: lstatSync(tmp, { bigint: true }) };
    }
    // An existing file keeps its exact permission bits (and owner), the exec bit as the tree says.
    const exec = entry.mode === '100755';
    const perm = before?.type === 'file' ? withExec(before.mode & 0o7777, exec) : undefined;
    errnoFault('apply:write-file', abs);
    const written = await onPath(rel, 'write', () =>
      writeNewFile(tmp, content, perm ?? (exec ? 0o777 : 0o666), perm !== undefined, { sync: false }),
    );
    if (before?.type === 'file') keepOwner(tmp, before, written);
    return { entry, tmp, file: true, written };
  }

  /**
   * Every staged file's content durable before any of them is renamed into place (I11), in one shared wait: one
   * syncfs of the folder's file system where it is trusted, else each file fsynced (syncFs.ts).
   */
  async syncStaged(staged: readonly Staged[]): Promise<void> {
    await syncWrittenFiles(staged.filter((s) => s.file && !s.durable).map((s) => s.tmp));
  }

  /** The second half: compare rel with what it must hold (I9), keep the old file linked aside, rename. */
  async place({ entry, tmp, written, reused }: Staged): Promise<boolean> {
    const rel = entry.path;
    const abs = this.abs(rel);
    await testHook('apply:before-place', abs);
    // The last look before the rename: the window that remains is from here to the rename. From here on every
    // step is synchronous, so no other work of this process runs inside that window.
    const now = await lstatIdentity(abs);
    const g = await this.guard(rel, now);
    if (!g.ok) {
      if (!reused) dropSideFile(tmp);
      this.temps.delete(tmp);
      return false;
    }
    if (now?.type === 'dir') await this.removeEmptyFolder(rel);
    const backup = now?.type === 'file' ? await this.backupOf(abs, rel, now, g.expect) : null;
    if (backup) fault('restore:mid-file');
    await testHook('apply:before-rename', abs);
    errnoFault('apply:rename', abs);
    await onPath(rel, 'replace', async () => renameSync(tmp, abs));
    this.temps.delete(tmp);
    if (this.opts.placed) this.recordPlaced(rel, entry, written);
    await testHook('apply:after-rename', abs);
    this.dirs.add(path.dirname(abs));
    this.done.push(
      now && now.type !== 'dir'
        ? { kind: 'replaced', rel, blob: entry.id, backup }
        : { kind: 'created', rel, blob: entry.id },
    );
    return true;
  }

  /** rel as it is right after its rename (the same turn: nothing of this process ran in between), for the staging. */
  private recordPlaced(rel: string, entry: TreeEntry, written: BigIntStats): void {
    try {
      const placed = lstatSync(this.abs(rel), { bigint: true });
      this.opts.placed?.set(rel, { blob: entry.id, mode: entry.mode, written, placed });
    } catch {
      // gone already: the staging leaves it to git
    }
  }

  /** A folder the tree has as a file: it may only hold empty folders (planRestore deleted its files first). */
  private async removeEmptyFolder(rel: string): Promise<void> {
    const abs = this.abs(rel);
    for (const e of await fs.readdir(abs, { withFileTypes: true })) {
      if (!e.isDirectory())
        throw new RetraceError('E_INVALID_INPUT', `cannot replace folder ${rel}: it is not empty (${rel}/${e.name})`);
      await this.removeEmptyFolder(`${rel}/${e.name}`);
    }
    const mode = (await fs.lstat(abs)).mode & 0o7777;
    await onPath(rel, 'remove folder', () => fs.rmdir(abs));
    this.done.push({ kind: 'rmdir', rel, mode });
  }

  /**
   * Check every replaced or deleted file once more, drop the side files, and make it all durable. Run after the
   * deletions (their side files would keep emptied folders from being pruned) and at the end.
   *
   * One sync, after the side files are dropped, covers the renames and the drops alike: a side file and its target
   * share a folder, and until that sync a crash is rolled back by recovery from the safety checkpoint (which holds
   * every replaced file's content, I9's identities say so) — the side file is not what keeps it. So the renames
   * need not be durable before the drops, only before the ledger line, which comes after this.
   */
  async settle(): Promise<void> {
    const late: string[] = [];
    const unchanged: Backup[] = [];
    const settled = new Set<Backup>();
    for (const d of this.done) {
      if ((d.kind !== 'replaced' && d.kind !== 'removed') || !d.backup || d.backup.settled) continue;
      let now: { id: StatIdentity; nlink: number } | null = null;
      if (this.opts.expect && d.backup.was.blob !== null) {
        now = await lstatWithLinks(d.backup.abs);
        if (!(await stillAsExpected(d.backup.abs, now?.id ?? null, d.backup.was, { ignoreCtime: true }))) {
          // Someone wrote to the file after our check, through a descriptor they held: their version goes back.
          await this.putBack(d);
          late.push(d.rel);
          continue;
        }
      }
      // Checked: kept for a later restore to put back (attic.ts), or dropped.
      const keptIn = now ? this.opts.attic?.keep(d.rel, d.backup.abs, d.backup.was, now.id, now.nlink) : null;
      if (keptIn) this.dirs.add(keptIn);
      else unchanged.push(d.backup);
      settled.add(d.backup);
    }
    // Dropped all at once: each unlink frees the replaced file's blocks and waits for the file system's journal,
    // and one after another those waits added up to most of a restore's time on a busy disk.
    await step('settle.drop', () => dropSideFiles(unchanged.map((b) => b.abs)));
    for (const d of this.done)
      if ((d.kind === 'replaced' || d.kind === 'removed') && d.backup && settled.has(d.backup)) {
        d.backup.settled = true;
        d.backup = null;
      }
    if (late.length > 0) {
      if (this.opts.onChanged === 'keep') this.opts.kept?.push(...late);
      else throw changedError(late);
    }
    const wholeFileSystem = await step('settle.sync', () => syncWrittenDirs(this.dirs));
    // A syncfs wrote out the content of the files just kept in the attic too: taken back, they need no sync.
    if (wholeFileSystem) this.opts.attic?.keptAreDurable();
    // Durable now: a later settle (the writes after the deletions) syncs only the folders it touched.
    this.dirs.clear();
  }

  /** The replaced or deleted file back in place, unless something else is there now (then it is kept beside it). */
  private async putBack(d: Extract<Done, { kind: 'replaced' | 'removed' }>): Promise<void> {
    if (!d.backup || d.backup.settled) return;
    const abs = this.abs(d.rel);
    const put = await putInPlace(abs, d.backup.abs, d.kind === 'replaced' ? d.blob : null, this.tag);
    this.keep(put.kept);
    d.backup.settled = true;
  }

  private keep(kept: string[]): void {
    if (kept.length > 0) this.opts.kept?.push(...relKept(this.root, kept));
  }

  /** Undo this run, newest first, from its side files; what cannot be undone here is left to the rollback. */
  async undo(): Promise<string[]> {
    const problems: string[] = [];
    for (const tmp of this.temps) await fs.rm(tmp, { force: true }).catch(() => {});
    for (const d of [...this.done].reverse()) {
      const abs = this.abs(d.rel);
      try {
        if (d.kind === 'created') {
          this.keep((await removeIfStill(abs, d.blob, this.tag)).kept);
        } else if (d.kind === 'replaced' || d.kind === 'removed') {
          if (d.backup) await this.putBack(d);
          else if (d.kind === 'removed' && d.link && !(await lstatIdentity(abs))) await fs.symlink(d.link, abs);
        } else if (d.kind === 'chmod') {
          await fs.chmod(abs, d.mode);
        } else if (d.kind === 'rmdir') {
          if (!(await lstatIdentity(abs))) await fs.mkdir(abs, { mode: d.mode });
        } else {
          await fs.rmdir(abs).catch(() => {}); // a folder we made: only when still empty
        }
      } catch (e) {
        problems.push(`${d.rel}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    }
    return problems;
  }
}

/** A hard link at `side`; a leftover of a killed run with that very name is dropped first, only when there is one. */
function linkBeside(abs: string, side: string): void {
  try {
    linkSync(abs, side);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    dropSideFile(side);
    linkSync(abs, side);
  }
}

function withExec(perm: number, exec: boolean): number {
  // Like git checkout: the exec bit follows the read bits; other permission bits stay as they are.
  return exec ? perm | ((perm & 0o444) >> 2) : perm & ~0o111;
}

/** Asked once: the answer cannot change while the process runs (we never setuid). */
const runningAsRoot = process.getuid?.() === 0;

/**
 * Running as root, the new file keeps the old one's owner; otherwise it is ours anyway. Both owners are known
 * already (the lstat before the write, the fstat after it): a chown only where they differ, since a root-run
 * restore of files root owns (containers, CI) paid an lstat and a chown per written file for nothing.
 */
function keepOwner(tmp: string, before: StatIdentity, written: BigIntStats): void {
  if (!runningAsRoot) return;
  if (Number(written.uid) === before.uid && Number(written.gid) === before.gid) return;
  try {
    lchownSync(tmp, before.uid, before.gid);
  } catch {
    // a file system without owners: the new file stays ours, as for a non-root run
  }
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
  opts: ApplyOptions = {},
): Promise<string[]> {
  const unique = [...new Set(paths)];
  unique.forEach(assertSafeRelPath);
  const entries = new Map<string, TreeEntry>();
  const listed = opts.entries ? entriesAsListed(opts.entries, unique) : await lsTree(git, tree, { paths: unique });
  for (const e of listed) entries.set(e.path, e);
  const run = new ApplyRun(root, opts);
  // Case-only renames are made first and are not undone by a failure later on: the file is the same either way.
  const respelled = new Set<string>();
  try {
    await applyAll(git, run, root, tree, unique, entries, respelled);
    await step('apply.settle', () => settleAlongside(run, opts.alongsideSettle));
  } catch (e) {
    const problems = await run.undo();
    const err = fsError(e);
    if (problems.length === 0) throw err;
    const message = `${err instanceof Error ? err.message : String(err)}; undoing it left ${problems.join(', ')}`;
    throw new RetraceError(err instanceof RetraceError ? err.code : 'E_INTERNAL', message, { cause: e });
  }
  const changed = new Set<string>(respelled);
  for (const d of run.done) if (d.kind !== 'mkdir' && d.kind !== 'rmdir') changed.add(d.rel);
  return [...changed].sort(cmp);
}

/** The final settle, with `alongside` running meanwhile; both finished before anything else (an undo) runs. */
async function settleAlongside(run: ApplyRun, alongside: (() => Promise<unknown>) | undefined): Promise<void> {
  const [settled] = await Promise.allSettled([run.settle(), alongside?.()]);
  if (settled.status === 'rejected') throw settled.reason;
}

/**
 * What `ls-tree TREE -- PATHS` answers, from entries known already: the entries of the listed paths, where a
 * folder is listed as such only when no other listed path lies inside it (ls-tree then shows that path instead).
 */
export function entriesAsListed(known: readonly TreeEntry[], paths: readonly string[]): TreeEntry[] {
  const wanted = new Set(paths);
  const opened = new Set(paths.flatMap(parentsOf));
  return known.filter((e) => wanted.has(e.path) && (e.type !== 'tree' || !opened.has(e.path)));
}

async function applyAll(
  git: GitRunner,
  run: ApplyRun,
  root: string,
  tree: string,
  unique: string[],
  entries: Map<string, TreeEntry>,
  respelledChanged: Set<string>,
): Promise<void> {
  // 1. Deletions, deepest first, then files/links standing where the tree has a folder.
  const absent = unique.filter((p) => !entries.has(p)).sort((a, b) => depth(b) - depth(a) || cmp(a, b));
  // Case-insensitive folder: a path the tree spells otherwise is the tree's file, renamed, never deleted.
  const respelled = run.caseInsensitive
    ? await respellForTree(git, root, tree, absent, respelledChanged)
    : new Set<string>();
  const toPrune = new Set<string>();
  for (const rel of absent) {
    if (respelled.has(rel)) continue;
    if (!(await parentsAreDirs(root, rel))) continue; // not inside our folder: nothing of ours to delete
    await run.remove(rel);
    toPrune.add(rel);
  }
  for (const rel of unique) {
    if (entries.get(rel)?.type !== 'tree') continue;
    if (!(await parentsAreDirs(root, rel))) continue;
    await run.remove(rel);
  }
  await run.settle();
  for (const rel of toPrune) await pruneEmpty(run, rel);

  // 2. Writes, only where the disk differs.
  const blobs = unique.map((p) => entries.get(p)).filter((e): e is TreeEntry => e?.type === 'blob');
  const sizes = await knownSizes(
    git,
    blobs.map((b) => b.id),
    run.knownSizes,
    run.objects,
  );
  const pending: TreeEntry[] = [];
  await step('apply.compare', async () => {
    // Only a look (the write checks the parents again, mkdirs): the paths' shared parents are looked at once.
    const folders = new Map<string, boolean>();
    for (const entry of blobs) {
      const abs = run.abs(entry.path);
      const now = (await parentsAreDirs(root, entry.path, folders)) ? await lstatIdentity(abs) : null;
      const state = await compare(abs, entry, now, sizes.get(entry.id));
      if (state === 'same') continue;
      if (state === 'mode-only') await run.chmodExec(entry.path, entry.mode === '100755');
      else pending.push(entry);
    }
  });

  // Kept files of earlier restores that hold what is wanted go in with the first batch, synced with it.
  let kept = await step('apply.reuse', () => run.stageKept(pending));
  const taken = new Set(kept.map((k) => k.entry));
  const toWrite = taken.size > 0 ? pending.filter((e) => !taken.has(e)) : pending;
  if (toWrite.length === 0 && kept.length > 0) await syncAndPlace(run, kept);
  // Read contents in bounded batches so a large restore does not hold every blob in memory at once.
  for (let i = 0; i < toWrite.length;) {
    const j = batchEnd(toWrite, (e) => sizes.get(e.id) ?? 0, i);
    const batch = toWrite.slice(i, j);
    const contents = await step('apply.readBlobs', () =>
      contentsOf(
        git,
        batch.map((b) => b.id),
        run.objects,
        run.readAhead,
      ),
    );
    // The whole batch staged, made durable in one wait, then renamed in: a batch's side files are bounded by its bytes.
    const staged: Staged[] = kept;
    kept = [];
    await step('apply.stage', async () => {
      for (const entry of batch) {
        const content = contents.get(entry.id);
        if (!content) throw new RetraceError('E_CORRUPT', `the shadow repository lacks the content of ${entry.path}`);
        staged.push(await run.stage(entry, content));
      }
    });
    await syncAndPlace(run, staged);
    i = j;
  }
}

async function syncAndPlace(run: ApplyRun, staged: readonly Staged[]): Promise<void> {
  await step('apply.syncStaged', () => run.syncStaged(staged));
  await step('apply.place', async () => {
    for (const s of staged) await run.place(s);
  });
}

/** Blob sizes: the ones the caller gave, the rest from git (its resident reader when given). */
async function knownSizes(
  git: GitRunner,
  ids: readonly string[],
  known: ReadonlyMap<string, number> | undefined,
  objects: Pick<ResidentReader, 'info'> | undefined,
): Promise<Map<string, number>> {
  const missing = [...new Set(known ? ids.filter((id) => !known.has(id)) : ids)];
  const sizes = new Map(known ?? []);
  if (missing.length === 0) return sizes;
  if (!objects) {
    for (const [id, n] of await blobSizes(git, missing)) sizes.set(id, n);
    return sizes;
  }
  const infos = await Promise.all(missing.map((id) => objects.info(id)));
  missing.forEach((id, i) => {
    const info = infos[i];
    if (info) sizes.set(id, info.size);
  });
  return sizes;
}

/** The blobs' bytes: all requests sent at once to the resident reader when given (one round of pipe traffic). */
async function contentsOf(
  git: GitRunner,
  ids: readonly string[],
  objects: Pick<ResidentReader, 'read'> | undefined,
  ahead: Map<string, Promise<Buffer | null>> | undefined,
): Promise<Map<string, Buffer>> {
  if (!objects) return readBlobs(git, ids);
  const unique = [...new Set(ids)];
  const read = await Promise.all(
    unique.map((id) => {
      const asked = ahead?.get(id);
      ahead?.delete(id);
      // A read asked ahead that failed (a reader process replaced meanwhile) is asked again, now.
      return asked ? asked.catch(() => blobOf(objects, id)) : blobOf(objects, id);
    }),
  );
  const out = new Map<string, Buffer>();
  unique.forEach((id, i) => {
    const body = read[i];
    if (body) out.set(id, body);
  });
  return out;
}

/** A blob's bytes through the resident reader; null when it is missing or not a blob. */
export async function blobOf(objects: Pick<ResidentReader, 'read'>, id: string): Promise<Buffer | null> {
  const o = await objects.read(id);
  return o && o.type === 'blob' ? o.body : null;
}

type Comparison = 'same' | 'mode-only' | 'differs';

async function compare(
  abs: string,
  entry: TreeEntry,
  st: StatIdentity | null,
  size: number | undefined,
): Promise<Comparison> {
  if (!st) return 'differs';
  if (entry.mode === '120000') return st.type === 'link' && (await diskBlob(abs, st)) === entry.id ? 'same' : 'differs';
  if (st.type !== 'file' || st.size !== BigInt(size ?? -1)) return 'differs';
  if ((await diskBlob(abs, st)) !== entry.id) return 'differs';
  const isExec = (st.mode & 0o111) !== 0;
  return isExec === (entry.mode === '100755') ? 'same' : 'mode-only';
}

async function parentsAreDirs(root: string, rel: string, seen?: Map<string, boolean>): Promise<boolean> {
  for (const parent of parentsOf(rel)) {
    let isDir = seen?.get(parent);
    if (isDir === undefined) {
      isDir = (await lstatIdentity(path.join(root, parent)))?.type === 'dir';
      seen?.set(parent, isDir);
    }
    if (!isDir) return false;
  }
  return true;
}

/** Remove rel (if it is an empty folder) and then each parent that became empty; stop at the first non-empty. */
async function pruneEmpty(run: ApplyRun, rel: string): Promise<void> {
  let cur = rel;
  while (cur !== '') {
    const abs = run.abs(cur);
    try {
      const st = await fs.lstat(abs);
      if (!st.isDirectory()) break;
      await fs.rmdir(abs);
      run.done.push({ kind: 'rmdir', rel: cur, mode: st.mode & 0o7777 });
      run.dirs.add(path.dirname(abs));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') break;
    }
    cur = cur.includes('/') ? cur.slice(0, cur.lastIndexOf('/')) : '';
  }
}

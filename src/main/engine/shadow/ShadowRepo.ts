import { lstatSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { ChangeCounts, CheckpointStats, FileChange, NotCaptured, RecoveryReport } from '../../../shared/model';
import { excludeFileContent, isHardExcluded, SHADOW_ATTRIBUTES } from '../excludes';
import { checkGit } from '../git/checkGit';
import { commitTree } from '../git/commitTree';
import { commitBody, gitNow, storedVerbatim } from '../git/commitObject';
import { changedPathsOfCommits } from '../git/changedPaths';
import { missingObjects } from '../git/catFile';
import { diffTreeFiles, type RawChange } from '../git/diffTree';
import { GitError, toRetraceError } from '../git/errors';
import { assertSha1, initShadowRepo } from '../git/init';
import { listIndex } from '../git/lsFiles';
import { lsTree } from '../git/lsTree';
import { looseObjectPaths, syncLooseObjects, writeLooseObject, writeLooseObjectSync } from '../git/looseObject';
import { mergeTrees, type TreeMerge } from '../git/mergeTree';
import { replaceInTree, type TreeEdit } from '../git/replaceInTree';
import { EMPTY_TREE, parentOf, peelToTree, reachableCommits, type ObjectType } from '../git/objects';
import { ObjectReader } from '../git/objectReader';
import { ASK_GIT, LooseRefs } from '../git/looseRefs';
import { FILE_CHANGES, RAW_CHANGES, ResidentDiffTree } from '../git/residentDiffTree';
import { ResidentReader } from '../git/residentReader';
import { step } from '../stepTrace';
import { entryAtPath, peelTree, type PathEntry } from '../git/treeWalk';
import * as refs from '../git/refs';
import { GitRunner } from '../git/runner';
import { assertLockHeld, holdsLock } from '../lock';
import { mkdirPrivate, writeFilePrivate } from '../privateFs';
import type { WorkspaceRef } from '../workspace';
import { looksLikeCorruption, ShadowDoctor } from './repair';
import {
  applyPaths,
  blobOf,
  planRestore,
  type ApplyOptions,
  type PlacedFile,
  type PlanReaders,
  type RestorePlan,
  type RestoreStep,
} from './restore';
import { stageRestored } from './stageRestored';
import { LineCounts } from './lineCounts';
import { TreeCache } from './treeCache';
import { DEFAULT_SIZE_CAP, snapshot, type SnapshotProgress, type SnapshotResult } from './snapshot';
import {
  adoptFullScan,
  checkScan,
  forceFullScan,
  forgetScanState,
  readStateText,
  refreshDue,
  scanStateTrees,
  lastTree,
} from './warmScope';
import { withPrivateIndex } from './privateIndex';
import { makeTag, tagSubjects } from '../git/tags';
import { dirBytes } from '../storage/dirBytes';

export interface ShadowRepoOptions {
  /** Files larger than this are reported as not captured. Default 50 MiB. */
  sizeCap?: number;
}

const HEX = /^[0-9a-f]+$/;
const OID = /^[0-9a-f]{40}$/;

/** A full scan made without the lock, waiting to become the warm base (prepareWarmBase). */
export interface WarmBase {
  /** The scan state file's text when the scan began: adopted only if it still reads so. */
  before: string;
  started: number;
  tree: string;
}

/** A reader whose git call failed the way a concurrent repack or gc can make it fail waits this, then retries once. */
const READER_RETRY_MS = 200;
/** Bounds ShadowRepo.checkedCommits: a session has one tip, so this is far more than a process meets. */
const MAX_CHECKED_COMMITS = 10_000;
/** placedLately's bound: past it a restore's record is dropped (~0.5 KB of stat data per file). */
const MAX_PLACED_KEPT = 20_000;

/**
 * All git work for one workspace. Callers hold the workspace lock for every method that writes refs or the
 * shadow index; readers (no lock) may snapshot into a private index (snapshotTree's privateIndex).
 */
export class ShadowRepo {
  readonly gitDir: string;
  private rulesChecked = false;
  /** Commit → tree, immutable, so asked of git once per commit (treeCache.ts). */
  private readonly trees = new TreeCache();
  /** Ids found to be commits whose tree is not known here (typeOf). */
  private readonly checkedCommits = new Set<string>();
  /** Commit → the paths it changed against its parent: immutable, so asked of git once per commit (search). */
  private readonly changedPathCache = new Map<string, string[]>();
  /** Line counts of a fast first snapshot's blobs, for the first checkpoint's stats (lineCounts.ts). */
  private readonly lineCounts = new LineCounts();
  /** Detects and repairs a damaged repository (shadow/repair.ts). */
  private readonly doctor: ShadowDoctor;
  /** One resident `cat-file --batch` for object reads: no process start per UI read (issue 15). */
  private readonly objects: ResidentReader;
  /** One resident `diff-tree --stdin` for diffs where the platform allows it (null: a process per diff). */
  private readonly differ: ResidentDiffTree<FileChange[]> | null;
  /** Restore plans' whole-tree diffs (started by the first restore; stops by itself when idle). */
  private readonly rawDiffer: ResidentDiffTree<RawChange[]> | null;
  /** refs/retrace/… read and moved in-process with git's lock protocol (git for anything unusual). */
  private readonly refs: LooseRefs;
  /** The runner with git's fsyncs off, for snapshots whose caller syncs the file system (snapshotTree syncLater). */
  private unsyncedGit: GitRunner | null = null;
  /**
   * What the last restore of this process put in place, as it was right after each rename (rememberPlaced): the next
   * restore's identities need not hash a file still exactly so (restore/fileIdentity.ts).
   */
  placedLately: ReadonlyMap<string, PlacedFile> = new Map();

  private constructor(
    readonly ws: WorkspaceRef,
    private readonly git: GitRunner,
    private readonly sizeCap: number,
  ) {
    this.gitDir = git.gitDir;
    this.doctor = new ShadowDoctor(this.gitDir, ws.root, ws.dir);
    this.objects = new ResidentReader(git);
    const resident = ResidentDiffTree.available();
    this.differ = resident ? new ResidentDiffTree(git, FILE_CHANGES) : null;
    this.rawDiffer = resident ? new ResidentDiffTree(git, RAW_CHANGES) : null;
    // A commit this process wrote, peeled or checked is a commit: reading or moving a ref to it asks cat-file nothing.
    this.refs = new LooseRefs(this.gitDir, { type: (id) => this.typeOf(id) });
  }

  /** Stop the resident git processes (idle ones never keep Node alive, and stop by themselves after a while). */
  close(): void {
    this.objects.close();
    this.differ?.close();
    this.rawDiffer?.close();
  }

  /** Opens (creating if missing, idempotently) <ws.dir>/shadow.git. */
  static async open(ws: WorkspaceRef, opts: ShadowRepoOptions = {}): Promise<ShadowRepo> {
    await checkGit();
    const gitDir = path.join(ws.dir, 'shadow.git');
    const emptyDir = path.join(ws.dir, 'empty');
    try {
      // Repairs only under the writer lock: a reader that opens a damaged repository fails (and status reports
      // it); the next writer repairs it (here, or through guard when the repository was opened by a reader).
      const writer = holdsLock(ws);
      if (writer) await new ShadowDoctor(gitDir, ws.root, ws.dir).beforeOpen();
      // A reader creates a repository that does not exist yet, but never "fixes" one that does: `git init`
      // over a repository that lost its HEAD would hide the damage from the repair (and its report).
      if (writer || !(await exists(gitDir))) await initShadowRepo(gitDir, emptyDir);
      // A reader still refuses another object format plainly (it is no damage for a writer to repair either).
      else assertSha1(gitDir, await fs.readFile(path.join(gitDir, 'config'), 'utf8').catch(() => ''));
      await mkdirPrivate(path.join(gitDir, 'info'));
      await writeIfDifferent(path.join(gitDir, 'info', 'attributes'), SHADOW_ATTRIBUTES);
    } catch (e) {
      if (e instanceof GitError || e instanceof RetraceError) throw toRetraceError(e);
      throw new RetraceError('E_DATA_DIR', `cannot create the shadow repository in ${ws.dir}: ${(e as Error).message}`);
    }
    const git = new GitRunner({ gitDir, workTree: ws.root, hooksDir: emptyDir });
    return new ShadowRepo(ws, git, opts.sizeCap ?? DEFAULT_SIZE_CAP);
  }

  /**
   * Capture the folder and return its tree (PRODUCT.md "What a checkpoint captures"). Writers stage into the
   * shadow index. `privateIndex` (readers: a diff to the files now) stages into a private copy of it instead
   * (privateIndex.ts), so no writer lock is needed: the shared index and the warm-snapshot state stay
   * untouched; the blobs and trees it writes are unreferenced objects, which gc keeps for its grace period.
   */
  async snapshotTree(
    opts: {
      hintPaths?: string[];
      onProgress?: (p: SnapshotProgress) => void;
      privateIndex?: boolean;
      /** A warm snapshot's objects are left unsynced, listed here, for the caller to sync with its own (snapshot.ts). */
      unsynced?: string[];
      /**
       * The full scan's git writes are left unsynced: the caller makes the whole file system durable (syncFs.ts)
       * before anything names the tree (record.ts), when the result says `gitUnsynced`.
       */
      syncLater?: boolean;
      /** A full scan that finds few changes may edit the index's tree instead of staging them (scanEdit.ts). */
      editSmallScans?: boolean;
      /** The caller writes into the folder next (a restore): the next snapshot's full scan is forced already. */
      beforeWrites?: boolean;
    } = {},
  ): Promise<SnapshotResult> {
    if (opts.privateIndex) return this.privateSnapshot(opts.onProgress);
    // hintPaths: what the caller knows changed; snapshot() may limit git's scan to them (warmScope.ts).
    const snap = await this.guard(async () => {
      const rulesChanged = await this.syncExcludeFile();
      const snap = await snapshot({
        git: opts.syncLater ? (this.unsyncedGit ??= this.git.withoutFsync()) : this.git,
        root: this.ws.root,
        sizeCap: this.sizeCap,
        isExcluded: this.excluder(),
        rulesChanged,
        caseInsensitive: this.ws.caseInsensitive,
        ...(opts.hintPaths ? { hintPaths: opts.hintPaths } : {}),
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        lineCounts: this.lineCounts,
        objects: this.objects,
        ...(opts.unsynced ? { unsynced: opts.unsynced } : {}),
        ...(opts.syncLater ? { syncLater: true } : {}),
        ...(opts.editSmallScans ? { editSmallScans: true } : {}),
        ...(opts.beforeWrites ? { beforeWrites: true } : {}),
      });
      this.trees.set(snap.tree, snap.tree); // a tree is its own tree: restores and diffs pass it back
      return snap;
    });
    const settle = snap.settle;
    return settle ? { ...snap, settle: () => this.guard(settle) } : snap;
  }

  /**
   * The background refresh of the warm base, without the lock (warmBase.ts): when one is due
   * (warmScope.ts refreshDue), a full scan into a private index, as a reader's diff to the files now makes one.
   * Null when none is due. Hand the result to adoptWarmBase under the lock.
   */
  async prepareWarmBase(): Promise<WarmBase | null> {
    const before = await readStateText(this.gitDir);
    if (before === null || !refreshDue(await checkScan(this.gitDir))) return null;
    const started = Date.now();
    const { tree } = await this.privateSnapshot();
    return { before, started, tree };
  }

  /** Make a background scan's tree the next warm snapshot's base, unless anything was recorded meanwhile. */
  async adoptWarmBase(base: WarmBase): Promise<boolean> {
    return this.guard(() => adoptFullScan(this.gitDir, base.before, base.started, base.tree));
  }

  private async privateSnapshot(
    onProgress?: (p: SnapshotProgress) => void,
  ): Promise<{ tree: string; notCaptured: NotCaptured[] }> {
    return this.guard(async () => {
      const rulesChanged = await this.syncExcludeFile({ consume: false });
      return withPrivateIndex(this.ws.dir, this.gitDir, async (indexFile) => {
        const snap = await snapshot({
          git: this.git.withIndexFile(indexFile),
          root: this.ws.root,
          sizeCap: this.sizeCap,
          isExcluded: this.excluder(),
          rulesChanged,
          caseInsensitive: this.ws.caseInsensitive,
          privateIndex: indexFile,
          ...(onProgress ? { onProgress } : {}),
        });
        this.trees.set(snap.tree, snap.tree);
        return snap;
      });
    });
  }

  private excluder(): (rel: string) => boolean {
    const dataRel = this.dataHomeInsideRoot();
    return (rel) => isHardExcluded(rel) || (dataRel !== null && (rel === dataRel || rel.startsWith(dataRel + '/')));
  }

  /**
   * `durable: false` (an import's thousands of commits): written without syncing, the caller syncs them all with
   * `syncObjects` before a log line names them.
   */
  async commit(
    tree: string,
    parent: string | null,
    message: string,
    opts: { durable?: boolean } = {},
  ): Promise<string> {
    const hash = await this.guard(() => this.writeCommit(tree, parent, message, opts.durable !== false));
    this.trees.set(hash, tree);
    return hash;
  }

  /**
   * The commit object `git commit-tree` would write, written here (no process): same bytes, so the same id.
   * git's own checks first (the tree is a tree, the parent a commit); anything git would word differently
   * (a failed check, a message git would rewrite) goes to git, which answers as it always did.
   */
  private async writeCommit(tree: string, parent: string | null, message: string, durable: boolean): Promise<string> {
    const fits =
      storedVerbatim(message) &&
      OID.test(tree) &&
      (parent === null || OID.test(parent)) &&
      (this.trees.get(tree) === tree || (await this.objects.type(tree)) === 'tree') &&
      (parent === null || (await this.typeOf(parent)) === 'commit');
    if (!fits) return commitTree(this.git, tree, parent, message);
    const body = commitBody(tree, parent, message, gitNow());
    return durable ? writeLooseObject(this.gitDir, 'commit', body) : writeLooseObjectSync(this.gitDir, 'commit', body);
  }

  /** The files and folders that make these loose objects durable (record.ts syncs them with its journal). */
  objectPaths(ids: Iterable<string>): { files: string[]; dirs: string[] } {
    return looseObjectPaths(this.gitDir, ids);
  }

  /** Make loose objects written unsynced durable now. */
  syncObjects(ids: Iterable<string>): Promise<void> {
    return syncLooseObjects(this.gitDir, ids);
  }

  /**
   * A tree this process wrote itself (buildTree.ts): a commit on it needs no type check by git (an import makes
   * thousands, and each check is a round trip to another process).
   */
  noteTree(tree: string): void {
    this.trees.set(tree, tree);
  }

  /** A commit this process made or peeled (the tree cache maps it to its tree). */
  private knownCommit(id: string): boolean {
    const tree = this.trees.get(id);
    return tree !== undefined && tree !== id;
  }

  /**
   * An object's type, a commit's remembered (an id's type never changes). A restore reads its session's tip and
   * commits onto it: a tip another process wrote (the hooks) was asked twice, each time queued behind the blobs
   * the restore reads ahead, 4–8 ms of a 50 ms restore at 1,000 files.
   */
  private async typeOf(id: string): Promise<ObjectType | null> {
    if (this.knownCommit(id) || this.checkedCommits.has(id)) return 'commit';
    const type = await this.objects.type(id);
    if (type === 'commit') {
      if (this.checkedCommits.size >= MAX_CHECKED_COMMITS) this.checkedCommits.clear();
      this.checkedCommits.add(id);
    }
    return type;
  }

  async readRef(ref: string): Promise<string | null> {
    assertRef(ref);
    return this.guard(async () => {
      const value = await this.refs.read(ref);
      return value === ASK_GIT ? refs.readRef(this.git, ref) : value;
    });
  }

  /** expectedOld: undefined = no check; null = must not exist yet; a hash = must still be there (else E_GIT). */
  async updateRef(ref: string, hash: string, expectedOld?: string | null): Promise<void> {
    assertRef(ref);
    return this.guard(async () => {
      if ((await this.refs.update(ref, hash, expectedOld)) === ASK_GIT)
        await refs.updateRef(this.git, ref, hash, expectedOld);
    });
  }

  async deleteRef(ref: string): Promise<void> {
    assertRef(ref);
    return this.guard(() => refs.deleteRef(this.git, ref));
  }

  listRefs(prefix: string): Promise<{ ref: string; hash: string }[]> {
    return this.guard(() => refs.listRefs(this.git, prefix));
  }

  /** A full hash that is a commit, or a 7+ hex prefix unique among the checkpoints reachable from refs/retrace/. */
  async resolveCommit(spec: string): Promise<string> {
    const s = spec.trim().toLowerCase();
    if (s.length < 7 || s.length > 40 || !HEX.test(s))
      throw new RetraceError('E_UNKNOWN_CHECKPOINT', `not a checkpoint hash: ${spec}`);
    return this.guard(async () => {
      if (s.length === 40) {
        if ((await this.objects.type(s)) === 'commit') return s;
        throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no such checkpoint: ${spec}`);
      }
      const matches = (await reachableCommits(this.git, 'refs/retrace/')).filter((h) => h.startsWith(s));
      const unique = [...new Set(matches)];
      if (unique.length === 1) return unique[0]!;
      if (unique.length === 0) throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no such checkpoint: ${spec}`);
      const shown = unique.slice(0, 5).map((h) => h.slice(0, 12));
      throw new RetraceError(
        'E_AMBIGUOUS',
        `${spec} names ${unique.length} checkpoints: ${shown.join(', ')}${unique.length > 5 ? ', …' : ''}`,
      );
    });
  }

  async commitExists(hash: string): Promise<boolean> {
    if (!HEX.test(hash) || hash.length !== 40) return false;
    return this.guard(async () => (await this.objects.type(hash)) === 'commit');
  }

  parentOf(hash: string): Promise<string | null> {
    return this.guard(() => parentOf(this.git, hash));
  }

  async treeOf(commitOrTree: string): Promise<string> {
    const known = this.trees.get(commitOrTree);
    if (known) return known;
    const tree = await this.guard(() =>
      OID.test(commitOrTree) ? peelTree(this.objects, commitOrTree) : peelToTree(this.git, commitOrTree),
    );
    if (!tree) throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no such checkpoint or tree: ${commitOrTree}`);
    this.trees.set(commitOrTree, tree);
    this.trees.set(tree, tree);
    return tree;
  }

  /** Changes between two commits or trees (null = the empty tree): renames, +/-, binary, any path. */
  async diff(from: string | null, to: string): Promise<FileChange[]> {
    const [a, b] = await Promise.all([from === null ? EMPTY_TREE : this.treeOf(from), this.treeOf(to)]);
    if (a === b) return []; // a no-change checkpoint: nothing to ask git
    const differ = this.differ;
    // The resident process answers as a process of its own would; if it fails (killed, a repack under it), the
    // one-shot call answers, and says what is wrong if something is.
    if (differ) return this.guard(() => differ.diff(a, b).catch(() => diffTreeFiles(this.git, a, b)));
    return this.guard(() => diffTreeFiles(this.git, a, b));
  }

  async diffStats(from: string | null, to: string): Promise<{ changed: ChangeCounts; stats: CheckpointStats }> {
    // A first checkpoint right after a fast first snapshot: its blobs' line counts are known (lineCounts.ts),
    // so git need not inflate every blob again for --numstat.
    const counted =
      from === null && this.lineCounts.size > 0
        ? this.lineCounts.addedFiles(await this.guard(() => lsTree(this.git, to, { recursive: true })))
        : null;
    this.lineCounts.clear(); // only ever useful for the first checkpoint
    const files = counted ?? (await this.diff(from, to));
    const changed: ChangeCounts = { added: 0, modified: 0, deleted: 0 };
    const stats: CheckpointStats = { files: files.length, insertions: 0, deletions: 0 };
    for (const f of files) {
      if (f.status === 'added') changed.added++;
      else if (f.status === 'deleted') changed.deleted++;
      else changed.modified++; // modified, renamed, type-changed
      stats.insertions += f.insertions;
      stats.deletions += f.deletions;
    }
    return { changed, stats };
  }

  /**
   * The paths each checkpoint changed against its parent commit (the previous checkpoint, as its stats count
   * it), for many checkpoints in one git call; remembered per commit, since a commit never changes.
   */
  async changedPaths(commits: readonly string[]): Promise<Map<string, string[]>> {
    const missing = [...new Set(commits.filter((c) => !this.changedPathCache.has(c) && HEX.test(c)))];
    if (missing.length > 0) {
      const found = await this.guard(() => changedPathsOfCommits(this.git, missing));
      for (const [c, paths] of found) this.changedPathCache.set(c, paths);
    }
    const out = new Map<string, string[]>();
    for (const c of commits) {
      const paths = this.changedPathCache.get(c);
      if (paths) out.set(c, paths);
    }
    return out;
  }

  /** An annotated tag object on `commit` with `text` as its message (labels.ts points a ref at it). */
  async makeTag(commit: string, name: string, text: string): Promise<string> {
    return this.guard(() => makeTag(this.git, commit, name, text));
  }

  /** Refs under `prefix` with their tag's first line. */
  tagSubjects(prefix: string): Promise<{ ref: string; subject: string }[]> {
    return this.guard(() => tagSubjects(this.git, prefix));
  }

  /** A file's bytes and mode in a commit or tree; null when the path is absent there (or is a folder). */
  async readFile(treeish: string, filePath: string): Promise<{ bytes: Buffer; mode: string } | null> {
    const tree = await this.treeOf(treeish);
    return this.guard(async () => {
      const entry = await entryAtPath(this.objects, tree, filePath);
      if (!entry || entry.type !== 'blob') return null;
      const blob = await this.objects.read(entry.id);
      if (!blob) throw new RetraceError('E_CORRUPT', `the shadow repository lacks the content of ${filePath}`);
      return { bytes: blob.body, mode: entry.mode };
    });
  }

  /** A `cat-file --batch` reader of this repository's objects (the caller closes it). */
  objectReader(): ObjectReader {
    return ObjectReader.open(this.git);
  }

  /**
   * A restore's plan made while its safety snapshot still scans the folder (issue 15: the scan is a git process,
   * this process waits meanwhile), from the tree the last snapshot named: most often nothing changed since, and the
   * snapshot names that tree again. The caller takes the plan only when it does (`from`); a folder that changed
   * meanwhile is planned from the new snapshot, or the change would be left out. `toTree` is a tree (treeOf): nothing
   * here goes through guard, as readAhead: a repair must not start in the background of a transaction. Null when
   * there is no such tree or anything failed.
   */
  async planAhead(toTree: string, paths?: string[]): Promise<{ from: string; plan: RestorePlan } | null> {
    try {
      const from = lastTree(await checkScan(this.gitDir));
      if (!from) return null;
      const plan = await planRestore(
        this.git,
        this.ws.root,
        from,
        toTree,
        paths,
        this.ws.caseInsensitive,
        this.planReaders(),
      );
      return { from, plan };
    } catch {
      return null; // only a head start: the plan is made again from the snapshot
    }
  }

  async planRestore(fromTree: string, toTree: string, paths?: string[]): Promise<RestorePlan> {
    const [a, b] = await Promise.all([this.treeOf(fromTree), this.treeOf(toTree)]);
    const readers = this.planReaders();
    return this.guard(() => planRestore(this.git, this.ws.root, a, b, paths, this.ws.caseInsensitive, readers));
  }

  private planReaders(): PlanReaders {
    const rawDiffer = this.rawDiffer;
    return { objects: this.objects, ...(rawDiffer ? { rawDiff: (x: string, y: string) => rawDiffer.diff(x, y) } : {}) };
  }

  async applyPaths(tree: string, paths: string[], opts: ApplyOptions = {}): Promise<string[]> {
    const t = await this.treeOf(tree);
    // Files are about to change behind any hint's back: the next snapshot looks at the whole folder (before
    // writing, so a kill midway leaves it so too).
    await step('apply.forceFullScan', () => forceFullScan(this.gitDir));
    return this.guard(() =>
      applyPaths(this.git, this.ws.root, t, paths, {
        caseInsensitive: this.ws.caseInsensitive,
        objects: this.objects,
        ...opts,
      }),
    );
  }

  /**
   * What a restore from `fromTree` (its safety snapshot) just wrote, staged into the shadow index so that the next
   * snapshot need not hash it again (stageRestored.ts). False when it is left to the next full scan; never throws.
   */
  stageRestored(
    fromTree: string,
    plan: { steps: readonly RestoreStep[]; wholeTo?: string },
    blobSizes: ReadonlyMap<string, number>,
    placed: ReadonlyMap<string, PlacedFile>,
  ): Promise<boolean> {
    const { steps, wholeTo } = plan;
    const input = { git: this.git, root: this.ws.root, fromTree, steps, wholeTo, blobSizes, placed };
    return stageRestored({ ...input, sizeCap: this.sizeCap, caseInsensitive: this.ws.caseInsensitive });
  }

  /** Keep what a finished restore placed (placedLately); a very large one is not kept (its stat data weighs). */
  rememberPlaced(placed: ReadonlyMap<string, PlacedFile>): void {
    this.placedLately = placed.size <= MAX_PLACED_KEPT ? placed : new Map();
  }

  /** path → blob id of the files and symlinks among `paths` in a commit or tree (folders and absent paths left out). */
  async blobsAt(treeish: string, paths: readonly string[]): Promise<Map<string, string>> {
    const tree = await this.treeOf(treeish);
    if (paths.length === 0) return new Map();
    const entries = await this.guard(() => this.entriesAt(tree, paths));
    return new Map([...entries].filter(([, e]) => e.type === 'blob').map(([p, e]) => [p, e.id]));
  }

  /** What changed from `base` to `theirs`, merged onto `ours` by git (a revert: ours = the files now). */
  async mergeTrees(trees: { base: string; ours: string; theirs: string }): Promise<TreeMerge> {
    const [base, ours, theirs] = await Promise.all([trees.base, trees.ours, trees.theirs].map((t) => this.treeOf(t)));
    const version = await checkGit();
    return this.guard(() => mergeTrees(this.git, version, { base: base!, ours: ours!, theirs: theirs! }));
  }

  /** `tree` with some paths set to other entries or removed (a throwaway index; the shadow index is untouched). */
  async replaceInTree(tree: string, edits: readonly TreeEdit[]): Promise<string> {
    const t = await this.treeOf(tree);
    return this.guard(() =>
      withPrivateIndex(this.ws.dir, this.gitDir, (indexFile) =>
        replaceInTree(this.git.withIndexFile(indexFile), t, edits),
      ),
    );
  }

  /** Store bytes as a blob (a hunk restore's new file content). */
  async writeBlob(bytes: Buffer): Promise<string> {
    return writeLooseObject(this.gitDir, 'blob', bytes);
  }

  /** path → mode and blob id of the files and symlinks among `paths` in a commit or tree. */
  async treeEntries(treeish: string, paths: readonly string[]): Promise<Map<string, { mode: string; id: string }>> {
    const tree = await this.treeOf(treeish);
    if (paths.length === 0) return new Map();
    const entries = await this.guard(() => this.entriesAt(tree, paths));
    return new Map([...entries].filter(([, e]) => e.type === 'blob').map(([p, e]) => [p, { mode: e.mode, id: e.id }]));
  }

  /**
   * The entries at `paths` of a tree, walked through the resident reader (folders shared by the paths are read
   * once). Paths ls-tree would read as patterns rather than names (empty parts, a trailing '/') go to ls-tree.
   */
  private async entriesAt(tree: string, paths: readonly string[]): Promise<Map<string, PathEntry>> {
    const out = new Map<string, PathEntry>();
    if (paths.some((p) => p === '' || p.split('/').some((part) => part === '' || part === '.' || part === '..'))) {
      for (const e of await lsTree(this.git, tree, { paths: [...paths] })) out.set(e.path, e);
      return out;
    }
    const trees = new Map();
    for (const p of new Set(paths)) {
      const e = await entryAtPath(this.objects, tree, p, trees);
      if (e) out.set(p, e);
    }
    return out;
  }

  /**
   * Blob contents asked for ahead of the apply that writes them (ApplyOptions.readAhead): the resident reader works
   * on them beside the steps in between. One that is never used fails quietly; its caller bounds the bytes.
   * Not through guard: a repair must not start in the background of a transaction. The apply asks again for one
   * that failed, inside its own guard.
   */
  readAhead(ids: readonly string[]): Map<string, Promise<Buffer | null>> {
    const out = new Map<string, Promise<Buffer | null>>();
    for (const id of new Set(ids)) {
      const body = blobOf(this.objects, id);
      body.catch(() => {}); // unused, or failed: the apply asks again
      out.set(id, body);
    }
    return out;
  }

  /** The byte size of each blob (for the free-space check before a restore), asked of the resident reader. */
  async blobSizes(ids: readonly string[]): Promise<number[]> {
    return this.guard(() => this.sizesAhead(ids));
  }

  /** blobSizes, not through guard (a restore's plan made ahead, planAhead): its caller asks again on failure. */
  async sizesAhead(ids: readonly string[]): Promise<number[]> {
    const infos = await Promise.all(ids.map((id) => this.objects.info(id)));
    return infos.map((info) => info?.size ?? 0);
  }

  /** Bytes the shadow repository takes on disk (a walk of its files: cached by maintenance.ts for status). */
  async storageBytes(): Promise<number> {
    return dirBytes(this.gitDir);
  }

  /** Loose objects and packs, as `git count-objects -v` counts them. */
  /** Loose objects and packs, by count and by bytes on disk (`count-objects -v` gives KiB). */
  async objectCounts(): Promise<{ loose: number; packs: number; looseBytes: number; packBytes: number }> {
    const out = await this.guard(() => this.git.raw(['count-objects', '-v']));
    const num = (k: string): number => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(out)?.[1] ?? 0);
    return {
      loose: num('count'),
      packs: num('packs'),
      looseBytes: num('size') * 1024,
      packBytes: num('size-pack') * 1024,
    };
  }

  /**
   * Pack loose objects and drop unreachable ones older than `pruneExpire`; every ref'd commit stays (I5).
   * Never `now`: a reader's private snapshot and a writer between commit and update-ref hold objects no ref
   * names yet (issue 10 item 5). The caller holds the lock (maintenance.ts, on a try-lock).
   */
  /**
   * Pack the loose objects that refs reach into one new pack (incremental: existing packs stay, so it takes
   * about a second where a full gc of a large folder takes many, all of it under the writer lock). Loose
   * objects no ref reaches yet (a reader's snapshot) stay loose. The caller holds the lock.
   */
  async packLoose(): Promise<void> {
    await this.guard(() => this.git.raw(['repack', '-d', '-l', '-q']));
  }

  /**
   * Drop every packed object no ref (nor the index) reaches any more: `repack -a -d` writes one pack of what is
   * reachable and deletes the old packs, so a forgotten session's objects go now (storage/collect.ts packs its
   * loose objects first). Loose unreachable objects (a reader's private snapshot in flight) are left alone for
   * the grace period, so readers are never pulled from under. The caller holds the lock.
   *
   * The scan state goes with them: the trees it names (the last snapshot's, a warm or scan edit's base) may be
   * among what went, and an edit of a tree that is gone writes a tree whose unchanged folders are missing. The
   * next snapshot is then a full one through git's index, whose trees repack keeps.
   */
  async repackReachable(): Promise<void> {
    await this.guard(() => this.git.raw(['repack', '-a', '-d', '-l', '-q']));
    forgetScanState(this.gitDir);
  }

  /** Refs under `prefix` whose history contains any of `commits` (storage/keep.ts: labelled sessions). */
  async refsContaining(commits: readonly string[], prefix: string): Promise<string[]> {
    if (commits.length === 0) return [];
    const args = ['for-each-ref', '--format=%(refname)', ...commits.flatMap((c) => ['--contains', c]), prefix];
    const out = await this.guard(() => this.git.raw(args));
    return out.split('\n').filter((l) => l.length > 0);
  }

  /** Refs under `prefix` with the commit each names, tags peeled (labels are annotated tags). */
  async peeledRefs(prefix: string): Promise<{ ref: string; commit: string }[]> {
    const out = await this.guard(() =>
      this.git.raw(['for-each-ref', '--format=%(objectname) %(*objectname) %(refname)', prefix]),
    );
    return out
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => {
        const [obj, peeled, ...ref] = l.split(' ');
        return { ref: ref.join(' '), commit: peeled || obj! };
      })
      .filter((r) => r.ref.length > 0);
  }

  /** Commits reachable from `ref` (a session's chain). */
  async chain(ref: string): Promise<string[]> {
    assertRef(ref);
    const out = await this.guard(() => this.git.raw(['rev-list', ref]));
    return out.split('\n').filter((l) => l.length === 40);
  }

  /**
   * Bytes on disk of the objects reachable from `refs` and from none of `others` (what dropping those refs would
   * free, give or take deltas against kept objects). Refs are fed on stdin: a workspace may have thousands.
   */
  async uniqueDiskUsage(refList: readonly string[], others: readonly string[]): Promise<number> {
    if (refList.length === 0) return 0;
    for (const r of [...refList, ...others]) assertRef(r);
    const stdin = [...refList, ...others.map((r) => `^${r}`)].join('\n') + '\n';
    const { stdout } = await this.guard(() =>
      this.git.exec(['rev-list', '--objects', '--disk-usage', '--stdin'], { stdin, withoutIndex: true }),
    );
    return Number(stdout.toString('utf8').trim()) || 0;
  }

  async gc(pruneExpire: string): Promise<void> {
    if (/^now$/i.test(pruneExpire.trim())) throw new RetraceError('E_INVALID_INPUT', 'gc never prunes with no grace');
    await this.guard(() => this.git.raw(['gc', '--quiet', `--prune=${pruneExpire}`]));
    // gc drops an object only when neither a ref nor a recent object reaches it, so a tree the state names that is
    // still here still has all its folders. One can be gone: an adopted background scan's tree is named by the
    // state alone, and after weeks without a snapshot it is pruned. Forgetting the state costs the next snapshot a
    // full scan and sweep, so only then.
    const named = await scanStateTrees(this.gitDir);
    if ((await missingObjects(this.git, named)).length > 0) forgetScanState(this.gitDir);
  }

  /** Damage the cheap check finds, in words, changing nothing (readers: status reports it as pending). */
  async inspect(): Promise<string[]> {
    const problems = await this.doctor.inspect();
    try {
      await listIndex(this.git); // reads the index and its shared part (a lost sharedindex.* shows here)
    } catch (e) {
      if (e instanceof GitError && e.kind === 'corrupt') problems.push('the shadow index is damaged');
      else throw toRetraceError(e);
    }
    return problems;
  }

  /** Detect and fix damage the next command can fix by itself (issue 6 extends this). The caller holds the lock. */
  async repair(): Promise<RecoveryReport[]> {
    const reports: RecoveryReport[] = await this.doctor.checkup();
    const ts = (): string => new Date().toISOString();
    try {
      await listIndex(this.git);
    } catch (e) {
      if (e instanceof GitError && e.kind === 'corrupt') {
        // The index is only a cache of the last snapshot: without it the next snapshot re-hashes everything.
        await fs.rm(path.join(this.gitDir, 'index'), { force: true });
        reports.push({ ts: ts(), kind: 'repository-repaired', detail: 'discarded a damaged shadow index' });
      } else throw toRetraceError(e);
    }
    return reports;
  }

  /**
   * Keep <shadow>/info/exclude = defaults + the folder's .retraceignore. True when it changed (or on this
   * process's first snapshot). Readers may write it too: its content follows from .retraceignore alone, and
   * it is replaced atomically; `consume: false` (a reader) leaves the "first snapshot" flag to the writer.
   */
  private async syncExcludeFile(opts: { consume?: boolean } = {}): Promise<boolean> {
    let retraceIgnore: string | null = null;
    const file = path.join(this.ws.root, '.retraceignore');
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (st?.isFile()) {
      try {
        retraceIgnore = readFileSync(file, 'utf8');
      } catch {
        throw new RetraceError('E_UNREADABLE', 'cannot read .retraceignore');
      }
    }
    let content = excludeFileContent(retraceIgnore);
    const dataRel = this.dataHomeInsideRoot();
    if (dataRel !== null) content += `/${dataRel}/\n`;
    const changed = await writeIfDifferent(path.join(this.gitDir, 'info', 'exclude'), content);
    const first = !this.rulesChecked;
    if (opts.consume !== false) this.rulesChecked = true;
    return changed || first;
  }

  /** The data home, relative to the root, when someone keeps it inside the folder (never capture it). */
  private dataHomeInsideRoot(): string | null {
    const rel = path.relative(this.ws.root, this.ws.dataHome ?? path.dirname(path.dirname(this.ws.dir)));
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return rel.split(path.sep).join('/');
  }

  /**
   * Every git operation goes through here. A writer (holding the lock) first checks that its lock is still its
   * own; a failure that looks like a damaged repository is repaired once and the operation tried again.
   * A reader never repairs: what looks like damage may be another process's repack or gc in flight (a pack
   * replaced, loose objects just packed), so it waits a moment, retries once, and then reports the error.
   */
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    const writer = holdsLock(this.ws);
    if (writer) assertLockHeld(this.ws);
    try {
      return await fn();
    } catch (e) {
      if (writer) {
        if (!(await this.doctor.onFailure(e).catch(() => false))) throw toRetraceError(e);
      } else {
        if (!mayBeTransient(e)) throw toRetraceError(e);
        await new Promise((r) => setTimeout(r, READER_RETRY_MS));
      }
    }
    try {
      return await fn();
    } catch (e) {
      throw toRetraceError(e);
    }
  }
}

function assertRef(ref: string): void {
  if (!/^refs\/[A-Za-z0-9._\-/]+$/.test(ref) || ref.includes('..') || ref.endsWith('/') || ref.endsWith('.lock'))
    throw new RetraceError('E_INVALID_INPUT', `not a valid ref name: ${ref}`);
}

/** A git failure a concurrent repack, gc or ref packing can cause for a moment (reads only). */
function mayBeTransient(e: unknown): boolean {
  if (!(e instanceof GitError)) return false;
  return e.kind === 'corrupt' || looksLikeCorruption(`${e.stderr}\n${e.message}`);
}

/** Replace a small file atomically (a concurrent git reads the old or the new content, never half). */
async function writeIfDifferent(file: string, content: string): Promise<boolean> {
  // Read in a plain system call: every snapshot (each hook call) compares, and it is rarely different.
  let current: string | null = null;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = null;
  }
  if (current === content) return false;
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFilePrivate(tmp, content);
  await fs.rename(tmp, file);
  return true;
}

async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}

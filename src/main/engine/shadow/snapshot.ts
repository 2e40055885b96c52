import { accessSync, constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { NotCaptured } from '../../../shared/model';
import { GitError, toRetraceError } from '../git/errors';
import { listIgnoredTracked, listWorkTreeChanges, type WorkTreeChanges } from '../git/lsFiles';
import type { GitRunner } from '../git/runner';
import { addToIndex, removeFromIndex, writeTree } from '../git/updateIndex';
import { fastFirstAdd, indexIsEmpty, useFastFirst } from './fastFirstSnapshot';
import type { LineCounts } from './lineCounts';
import { staleSpellings } from './caseInsensitive';
import { lstatOrNull, NameTooLong, parentChecker, timeSliced } from './diskChecks';
import { scanThenEdit } from './scanEdit';
import { editTree, type ObjectSource } from './treeEdit';
import { checkScan, lastTree, recordScan, unchangedTree, warmScope } from './warmScope';
import { walkUntrackedDirs } from './walkUntracked';
import { step } from '../stepTrace';

export const DEFAULT_SIZE_CAP = 50 * 1024 * 1024;

export interface SnapshotProgress {
  phase: string;
  done: number;
  total?: number;
}

export interface SnapshotContext {
  git: GitRunner;
  root: string;
  sizeCap: number;
  /** Hard exclusion (defaults, the data home if it lies inside the folder). */
  isExcluded: (rel: string) => boolean;
  /** The ignore rules may have changed since the last snapshot (exclude file rewritten, first run). */
  rulesChanged: boolean;
  /** The folder ignores case (workspace.ts probes it): one entry per file, spelled as on disk (caseInsensitive.ts). */
  caseInsensitive?: boolean;
  /** Paths the caller knows changed (hook tool input, file watcher): may limit the scan (warmScope.ts). */
  hintPaths?: readonly string[];
  /** Filled by the fast first snapshot, for the first checkpoint's stats (lineCounts.ts). */
  lineCounts?: LineCounts;
  /**
   * A reader's private copy of the shadow index (privateIndex.ts; `git` already points at it): always a full
   * scan, and the warm-snapshot state, which describes the shared index, is read but never written.
   */
  privateIndex?: string;
  onProgress?: (p: SnapshotProgress) => void;
  /** The repository's resident object reader, for the warm path's tree reads (treeEdit.ts). */
  objects?: ObjectSource;
  /**
   * A warm snapshot leaves its objects unsynced, their ids added here, and its scan state unrecorded (the state
   * names its tree): the caller makes them durable with its own, then calls `settle` (record.ts).
   */
  unsynced?: string[];
  /**
   * The full scan's git writes unsynced (`git` is GitRunner.withoutFsync's): the caller syncs the whole file system
   * before anything names the tree (record.ts), told so by the result's `gitUnsynced`.
   */
  syncLater?: boolean;
  /**
   * A full scan that finds few changes may edit the index's tree instead of staging them (scanEdit.ts): for
   * checkpoints. Not for a restore's safety snapshot, whose staged index the restore then builds on.
   */
  editSmallScans?: boolean;
  /**
   * The caller writes into the folder next (a restore's safety snapshot): the scan state is recorded with the next
   * snapshot's full scan forced already (warmScope.ts forceFullScan), one write of it instead of two.
   */
  beforeWrites?: boolean;
}

/** A snapshot's tree; `settle`, when set, must run once the objects in `unsynced` are durable (SnapshotContext). */
export interface SnapshotResult {
  tree: string;
  notCaptured: NotCaptured[];
  settle?: () => Promise<void>;
  /** The full scan ran with git's fsyncs off (SnapshotContext.syncLater): one syncfs must precede the log line. */
  gitUnsynced?: true;
}

const RULE_FILES = new Set(['.gitignore', '.retraceignore']);

/**
 * Capture the folder as a tree. Warm (hinted, warmScope.ts): the last tree with the hinted paths updated
 * (treeEdit.ts). Full: bring the shadow index up to date with the folder and write its tree — one ls-files
 * (both walks in git), an lstat per changed or new path, one update-index that hashes only those, one write-tree.
 * Nothing is written in the folder. An unreadable file aborts with E_UNREADABLE before any tree is written.
 */
export async function snapshot(ctx: SnapshotContext): Promise<SnapshotResult> {
  const { git, root } = ctx;
  ctx.onProgress?.({ phase: 'scan', done: 0 });
  const scanStarted = Date.now();
  const priv = ctx.privateIndex;
  // Without hints the scan is a full one whatever the scan state says: its git process starts first, and the
  // state is read while git walks the folder (a restore's safety snapshot waited for it).
  const fullAhead = priv || !ctx.hintPaths ? fullScan(git) : null;
  fullAhead?.catch(() => {}); // its failure is thrown where it is awaited, below
  const scan = await step('scan-check', () => checkScan(git.gitDir, priv));
  // Warm path (engineer E, warmScope.ts + treeEdit.ts): with trusted hints, only those paths are looked at.
  const scope = priv ? null : warmScope(scan, ctx.hintPaths, scanStarted);
  const base = lastTree(scan);
  if (scope !== null && base !== null) {
    const warm =
      scope.length === 0
        ? { tree: base, notCaptured: [] }
        : await step('tree-edit', () =>
            editTree({
              git,
              root,
              sizeCap: ctx.sizeCap,
              isExcluded: ctx.isExcluded,
              baseTree: base,
              paths: scope,
              caseInsensitive: ctx.caseInsensitive ?? false,
              ...(ctx.objects ? { objects: ctx.objects } : {}),
              ...(ctx.unsynced ? { unsynced: ctx.unsynced } : {}),
            }),
          ).catch((e: unknown) => {
            if (e instanceof RetraceError) throw e; // unreadable: the full scan would fail the same way
            return null; // e.g. the base tree lost: the full scan below starts from the index
          });
    if (warm) {
      const settle = () => step('scan-record', () => recordScan(git.gitDir, scan, true, scanStarted, warm.tree));
      if (ctx.unsynced) return { ...warm, settle };
      await settle();
      return warm;
    }
  }
  const changes = await (fullAhead ?? fullScan(git));

  // Few changes found: the index's tree edited at those paths, no staging, no write-tree (scanEdit.ts).
  if (ctx.editSmallScans) {
    const edited = await step('scan-edit', () => scanThenEdit(ctx, scan, changes, scanStarted));
    if (edited) return edited;
  }

  const nestedDirs = changes.others.filter((p) => p.endsWith('/'));
  const untracked = changes.others.filter((p) => !p.endsWith('/'));
  const tooLong = [...(changes.tooLong ?? [])];
  if (nestedDirs.length > 0) {
    const walked = await walkUntrackedDirs(git, root, nestedDirs, ctx.isExcluded);
    untracked.push(...walked.files);
    tooLong.push(...walked.tooLong);
  }

  const tracked = new Set([...changes.modified, ...changes.deleted]);
  const toRemove = new Set(changes.deleted);
  const fresh = untracked.filter((p) => !ctx.isExcluded(p));
  if (ctx.caseInsensitive) {
    // A case-only rename shows as a new name beside its old index entry, one file on disk: keep the new one.
    const stale = await staleSpellings(git, root, fresh, !scan.settled);
    for (const p of stale.drop) toRemove.add(p);
    fresh.push(...stale.add);
  }
  const candidates = [...new Set([...changes.modified.filter((p) => !toRemove.has(p)), ...fresh])];

  // A first snapshot (empty index) staged only paths that passed the ignore rules: no sweep to do after it.
  const firstSnapshot = await indexIsEmpty(git.gitDir, priv);
  const toAdd: string[] = [];
  const unsupported: string[] = 'unsupported' in changes ? (changes.unsupported ?? []) : [];
  const notCaptured: NotCaptured[] = [
    ...unsupported.map((p) => ({ path: p, reason: 'unsupported-name' as const })),
    ...tooLong.map((p) => ({ path: p, reason: 'name-too-long' as const })),
  ];
  const parentOk = parentChecker(root);
  let done = 0;
  const total = candidates.length;
  ctx.onProgress?.({ phase: 'stat', done, total });

  await timeSliced(candidates, (rel) => {
    done++;
    let st;
    try {
      st = parentOk(rel) ? lstatOrNull(root, rel) : null;
    } catch (e) {
      if (!(e instanceof NameTooLong)) throw e;
      // git reached it by a relative path; with the folder's path in front it is past PATH_MAX.
      notCaptured.push({ path: rel, reason: 'name-too-long' });
      if (tracked.has(rel)) toRemove.add(rel);
      return;
    }
    if (st === null) {
      if (tracked.has(rel)) toRemove.add(rel);
      else notCaptured.push({ path: rel, reason: 'vanished' });
      return;
    }
    if (st.isSymbolicLink()) {
      toAdd.push(rel);
    } else if (st.isFile()) {
      if (st.size > ctx.sizeCap) {
        notCaptured.push({ path: rel, reason: 'too-large', size: st.size });
        if (tracked.has(rel)) toRemove.add(rel);
        return;
      }
      try {
        accessSync(path.join(root, rel), fsConstants.R_OK);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') {
          // Deleted between lstat and access: gone, not unreadable.
          if (tracked.has(rel)) toRemove.add(rel);
          else notCaptured.push({ path: rel, reason: 'vanished' });
          return;
        }
        throw new RetraceError('E_UNREADABLE', `cannot read ${rel}: permission denied`);
      }
      toAdd.push(rel);
    } else if (tracked.has(rel)) {
      toRemove.add(rel); // now a directory (its files arrive as new paths) or a fifo/socket
    }
  });

  notCaptured.sort((a, b) => (a.path < b.path ? -1 : 1));
  ctx.onProgress?.({ phase: 'hash', done: 0, total: toAdd.length });
  try {
    await removeFromIndex(git, [...toRemove]);
    // Fast path (engineer E, fastFirstSnapshot.ts): a first snapshot of many files goes into packs, not one
    // loose object per file. Same paths, same blobs, same tree (fastPaths.test.ts); any failure other than
    // an unreadable file falls back to the plain path.
    if (toRemove.size === 0 && !priv && useFastFirst(firstSnapshot, toAdd.length)) {
      await fastFirstAdd({
        gitDir: git.gitDir,
        root,
        paths: toAdd.sort(),
        ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
        ...(ctx.lineCounts ? { lineCounts: ctx.lineCounts } : {}),
      }).catch(async (e: unknown) => {
        if (e instanceof RetraceError) throw e;
        await addToIndex(git, toAdd.sort());
      });
    } else if (toAdd.length > 0) {
      await step('add', () => addToIndex(git, toAdd.sort()));
    }
  } catch (e) {
    if (e instanceof GitError && e.kind === 'unreadable')
      throw new RetraceError('E_UNREADABLE', `cannot read ${e.path ?? 'a file of the folder'}`);
    throw toRetraceError(e);
  }

  const touchedRules = [...toAdd, ...toRemove].some((p) => RULE_FILES.has(p.slice(p.lastIndexOf('/') + 1)));
  // Not when the rules and the index are exactly as the last completed snapshot left them: its sweep holds
  // (warmScope.ts "settled"; rulesChanged is also true for the first snapshot of every process).
  const sweep = !firstSnapshot && ((ctx.rulesChanged && !scan.settled) || touchedRules);
  if (sweep) {
    // Files captured earlier that the rules now exclude leave the checkpoint (and so are never restored over).
    await removeFromIndex(git, await listIgnoredTracked(git));
  }
  ctx.onProgress?.({ phase: 'tree', done: toAdd.length, total: toAdd.length });
  // Nothing staged into a settled index: it is the index the last snapshot wrote its tree from (warmScope.ts).
  const same = toAdd.length === 0 && toRemove.size === 0 && !sweep ? unchangedTree(scan) : null;
  const tree = same ?? (await step('write-tree', () => writeTree(git)));
  const fullAt = ctx.beforeWrites ? 0 : scanStarted;
  if (!priv) await step('record', () => recordScan(git.gitDir, scan, false, fullAt, tree));
  return { tree, notCaptured, ...(ctx.syncLater ? { gitUnsynced: true as const } : {}) };
}

/** git's walk of the whole folder (lsFiles.ts); a folder it cannot read is E_UNREADABLE. */
function fullScan(git: GitRunner): Promise<WorkTreeChanges> {
  return step('full-scan', () => listWorkTreeChanges(git)).catch((e: unknown) => {
    if (e instanceof GitError && e.kind === 'unreadable') throw new RetraceError('E_UNREADABLE', e.message);
    throw e;
  });
}

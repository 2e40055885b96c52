/**
 * A full scan that finds few changes builds its tree without git's index (issue 15: a cold checkpoint of a small
 * project paid three git processes — scan, update-index, write-tree — where raw git pays two): git's scan names
 * every path that differs from the index, and the tree the index holds (warmScope.ts `indexTree`) is edited at
 * exactly those paths by treeEdit.ts, which judges each as the full scan would (bytes and mode, the size cap,
 * the exclusions and ignore rules for a path new to the index). The same tree as staging and write-tree would
 * give (scanEdit.test.ts compares them), from one git process.
 *
 * The index is left as it was, as after a warm snapshot: the next scan names those paths again (the pile), so the
 * edit is used only while they stay few (MAX_PATHS, MAX_BYTES); past that, the plain path stages them all and the
 * index catches up. Meanwhile each edit starts from the last one's tree and reads only the paths of the pile that
 * moved since (scanPile.ts). Also the plain path's: anything unusual — rules not settled or touched, nested
 * repositories, names git could not give, a case-insensitive folder, a private index.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { WorkTreeChanges } from '../git/lsFiles';
import type { SnapshotContext, SnapshotResult } from './snapshot';
import { editTree } from './treeEdit';
import { loadPile, lookBeforeEdit, nextRecord, planPile, storePile } from './scanPile';
import { isRuleFile, lastTree, recordScanEdit, type ScanCheck } from './warmScope';

/** Paths (changed since the index was last written) up to which the scan's tree is edited instead of staged. */
export const MAX_PATHS = 64;
/** …and their bytes: each edit reads every such file again, where staging reads it once. */
export const MAX_BYTES = 8 * 1024 * 1024;

export async function scanThenEdit(
  ctx: SnapshotContext,
  scan: ScanCheck,
  changes: WorkTreeChanges,
  started: number,
): Promise<SnapshotResult | null> {
  const base = scan.settled ? (scan.state?.indexTree ?? null) : null;
  if (base === null || ctx.caseInsensitive || ctx.privateIndex || process.env.RETRACE_FAST_PATHS === '0') return null;
  if (changes.unsupported?.length || changes.tooLong?.length) return null;
  const paths = [...new Set([...changes.modified, ...changes.deleted, ...changes.others])].sort();
  if (paths.length === 0 || paths.length > MAX_PATHS) return null;
  if (paths.some((p) => p.endsWith('/') || isRuleFile(p))) return null;
  if (bytesOf(ctx.root, paths) > MAX_BYTES) return null;
  const plan = (await planPile(ctx.root, loadPile(scan.state?.pile), lastTree(scan), ctx.sizeCap, paths)) ?? {
    base,
    edit: paths,
    kept: new Map(),
  };
  const looked = await lookBeforeEdit(ctx.root, plan.edit);
  const captured = new Map<string, boolean>();
  const edited =
    plan.edit.length === 0
      ? { tree: plan.base, notCaptured: [] }
      : await editTree({
          git: ctx.git,
          root: ctx.root,
          sizeCap: ctx.sizeCap,
          isExcluded: ctx.isExcluded,
          baseTree: plan.base,
          paths: plan.edit,
          caseInsensitive: false,
          captured,
          ...(ctx.objects ? { objects: ctx.objects } : {}),
          ...(ctx.unsynced ? { unsynced: ctx.unsynced } : {}),
        }).catch((e: unknown) => {
          if (e instanceof RetraceError) throw e; // unreadable: the plain path would fail the same way
          return null; // e.g. the index's tree lost: the plain path stages from the index itself
        });
  if (!edited) return null;
  const pile = storePile(nextRecord(edited.tree, ctx.sizeCap, paths, plan.kept, looked, captured));
  // The state names the tree only once its objects are durable: the caller's round (record.ts), or editTree's own.
  const settle = (): Promise<void> => recordScanEdit(ctx.git.gitDir, scan, started, edited.tree, pile);
  // Where the caller syncs the whole file system once (syncLater), that one syncfs covers these objects too: a
  // round of per-object fsyncs took 25–40 ms here for the ~30 objects of ten edited files, one syncfs ~11.
  if (ctx.unsynced) return { ...edited, settle, ...(ctx.syncLater ? { gitUnsynced: true as const } : {}) };
  await settle();
  return edited;
}

function bytesOf(root: string, paths: readonly string[]): number {
  let total = 0;
  for (const p of paths) {
    try {
      total += lstatSync(path.join(root, p)).size;
    } catch {
      // gone, or below a file: nothing to read
    }
  }
  return total;
}

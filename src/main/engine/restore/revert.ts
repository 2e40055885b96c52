/**
 * `retrace revert CHECKPOINT`: take back what one step changed (the checkpoint against the previous checkpoint
 * of its session) from the files as they are now, keeping every later change. git merges (git/mergeTree.ts):
 * base = the checkpoint, ours = the files now (the transaction's safety snapshot), theirs = the previous
 * checkpoint; the merged tree is then applied by the restore transaction, so a revert has a safety checkpoint,
 * a journal, the I9 compare-before-write, a ledger entry, undo and kill recovery like any restore.
 *
 * Lines a later step changed again conflict: E_CONFLICT naming each file and its hunks, nothing changed —
 * unless `merge`, which writes git's conflict markers (undoable like the rest).
 */
import { RetraceError } from '../../../shared/errors';
import type { RestoreTarget, RevertResult } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import type { MergeConflict, TreeMerge } from '../git/mergeTree';
import type { TreeEdit } from '../git/replaceInTree';
import { checkWorkspacePath } from '../paths';
import { resolveCheckpoint } from '../read/resolve';
import { newRestoreId } from '../sessions/ids';
import type { ShadowRepo } from '../shadow';
import { transact } from './transaction';

export interface RevertRequest {
  target: string;
  /** Take back only the step's changes to these files (a rename counts for both its names). */
  paths?: string[];
  dryRun?: boolean;
  /** Write conflict markers instead of refusing. */
  merge?: boolean;
}

/** The caller holds the writer lock. */
export async function revertLocked(ctx: WorkspaceContext, req: RevertRequest): Promise<RevertResult> {
  const paths = req.paths ? await Promise.all(req.paths.map((p) => checkWorkspacePath(ctx.ws.root, p))) : undefined;
  const target = await resolveCheckpoint(ctx, req.target);
  const previous = await previousCheckpoint(ctx, target);
  const shadow = await ctx.shadow();
  const theirs = paths ? await stepLimitedTo(shadow, previous, target.hash, paths) : previous;
  const dryRun = req.dryRun === true;
  const rid = newRestoreId();
  let merged: TreeMerge | null = null;
  let current: string | null = null;
  const out = await transact(ctx, {
    rid,
    mode: 'revert',
    target,
    // Merged into the snapshot the transaction just took: what it writes is checked against that (I9).
    codeTree: async (snapshotTree) => {
      current = snapshotTree;
      merged = await shadow.mergeTrees({ base: target.hash, ours: snapshotTree, theirs });
      if (merged.conflicts.length > 0 && !dryRun && req.merge !== true) throw conflictError(target, merged.conflicts);
      return merged.tree;
    },
    conversation: null,
    dryRun,
  });
  const result = merged as TreeMerge | null;
  return {
    restore: rid,
    mode: 'revert',
    target,
    safety: out.safety,
    changed: out.changed,
    conflicts: result?.conflicts ?? [],
    dryRun,
    ...(dryRun && result && current ? { preview: await previewOf(shadow, current, result.tree) } : {}),
  };
}

/** The files now and the merged result as commits a diff can name (gc drops them after its grace period). */
async function previewOf(shadow: ShadowRepo, current: string, merged: string): Promise<RevertResult['preview']> {
  const from = await shadow.commit(current, null, 'retrace: the files now (revert preview)');
  const to = await shadow.commit(merged, from, 'retrace: the files after the revert (preview)');
  return { from, to, files: await shadow.diff(from, to) };
}

/** The checkpoint before `target` in its session: the other end of its step. */
async function previousCheckpoint(ctx: WorkspaceContext, target: RestoreTarget): Promise<string> {
  const s = await ctx.sessions.read(target.session);
  const at = s.messages.findIndex((m) => m.id === target.message);
  const before = s.messages
    .slice(0, Math.max(0, at))
    .reverse()
    .find((m) => m.hash && m.hash !== target.hash);
  if (!before?.hash)
    throw new RetraceError(
      'E_INVALID_INPUT',
      `checkpoint ${target.hash.slice(0, 7)} is the first of session ${target.session}: there is no step before it to take back (restore it instead)`,
    );
  return (await ctx.shadow()).resolveCommit(before.hash);
}

/**
 * "Theirs" for a revert limited to some files: the checkpoint with only those paths set back to the previous
 * checkpoint. A path names a file the step changed (either name of a rename) or a folder holding some.
 */
async function stepLimitedTo(shadow: ShadowRepo, previous: string, hash: string, paths: string[]): Promise<string> {
  const changes = await shadow.diff(previous, hash);
  const within = (p: string | undefined, named: string): boolean =>
    p !== undefined && (p === named || p.startsWith(named + '/'));
  const touched = new Set<string>();
  for (const named of paths) {
    const hits = changes.filter((c) => within(c.path, named) || within(c.oldPath, named));
    if (hits.length === 0)
      throw new RetraceError('E_INVALID_INPUT', `${named}: the step of ${hash.slice(0, 7)} did not change it`);
    for (const c of hits) {
      touched.add(c.path);
      if (c.oldPath) touched.add(c.oldPath);
    }
  }
  const before = await shadow.treeEntries(previous, [...touched]);
  const edits: TreeEdit[] = [...touched].map((p) => {
    const e = before.get(p);
    return e ? { path: p, mode: e.mode, id: e.id } : { path: p, remove: true };
  });
  return shadow.replaceInTree(hash, edits);
}

function conflictError(target: RestoreTarget, conflicts: MergeConflict[]): RetraceError {
  const listed = conflicts.map((c) => `${c.path} (${c.hunks} hunk${c.hunks === 1 ? '' : 's'})`).join(', ');
  return new RetraceError(
    'E_CONFLICT',
    `cannot revert ${target.hash.slice(0, 7)} cleanly: later changes touched the same lines in ${listed}; nothing was changed (--merge writes conflict markers)`,
  );
}

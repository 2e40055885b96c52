/** `retrace undo`: invert the newest ledger entry (restore or undo) — its files back to its safety checkpoint. */
import { RetraceError } from '../../../shared/errors';
import type { UndoResult } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import { invertVisibility } from '../ledger';
import { newRestoreId } from '../sessions/ids';
import { transact } from './transaction';

/** The caller holds the writer lock. */
export async function undoLocked(ctx: WorkspaceContext): Promise<UndoResult> {
  const entry = await ctx.ledger.newestRestore();
  if (!entry)
    throw new RetraceError('E_NOTHING_TO_UNDO', 'nothing to undo: no restore has been made in this workspace');
  const rid = newRestoreId();
  const shadow = await ctx.shadow();
  const codeTree = entry.safety && entry.paths.length > 0 ? await shadow.treeOf(entry.safety) : null;
  const out = await transact(ctx, {
    rid,
    mode: entry.mode,
    target: entry.target,
    codeTree,
    paths: entry.paths,
    conversation: entry.conversation ? invertVisibility(entry.conversation) : null,
    dryRun: false,
    undoOf: entry.rid,
  });
  return { undone: entry.rid, restore: rid, changed: out.changed };
}

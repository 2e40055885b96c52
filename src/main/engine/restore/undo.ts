/**
 * `retrace undo [RID]`: invert one ledger entry (restore, revert or undo) — its files back to its safety
 * checkpoint, its messages back. Without RID, the newest entry; with RID, that entry when nothing later still
 * in effect touched the same files or messages (history.ts decides, I14).
 */
import { RetraceError } from '../../../shared/errors';
import type { UndoResult } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import { invertVisibility } from '../ledger';
import { newRestoreId } from '../sessions/ids';
import { entryToUndo, newestToUndo } from './history';
import { transact } from './transaction';

/** The caller holds the writer lock, so the ledger cannot change between the check and the undo. */
export async function undoLocked(ctx: WorkspaceContext, rid?: string): Promise<UndoResult> {
  const entry =
    rid === undefined ? newestToUndo(await ctx.ledger.newestRestore()) : entryToUndo(await ctx.ledger.entries(), rid);
  // Its messages went with their session (`retrace forget`, gc): say so before anything is written (I14).
  if (entry.conversation && !ctx.sessions.exists(entry.conversation.session))
    throw new RetraceError(
      'E_UNKNOWN_SESSION',
      `${entry.rid} changed the conversation of session ${entry.conversation.session}, which was forgotten since: it cannot be undone`,
    );
  const undoRid = newRestoreId();
  const shadow = await ctx.shadow();
  const codeTree = entry.safety && entry.paths.length > 0 ? await shadow.treeOf(entry.safety) : null;
  const out = await transact(ctx, {
    rid: undoRid,
    mode: entry.mode,
    target: entry.target,
    codeTree,
    paths: entry.paths,
    conversation: entry.conversation ? invertVisibility(entry.conversation) : null,
    dryRun: false,
    undoOf: entry.rid,
  });
  return { undone: entry.rid, restore: undoRid, changed: out.changed };
}

/**
 * One restore transaction — a restore or an undo — in an order that a kill at any moment leaves recoverable:
 *
 *   safety snapshot → safety commit + ref → journal → apply files → visibility events → ledger entry → clear journal
 *
 * A thrown error rolls back what was done; a kill is rolled back by the next command's recovery (recovery/).
 */
import type { RestoreMode, RestoreTarget } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import { fault, faultArmed } from '../faults';
import type { RestoreJournal, VisibilityChange } from '../journal';
import type { LedgerRestore } from '../ledger';
import { rollBack } from '../recovery/recover';
import type { RewindEvent, UnrewindEvent } from '../sessions/events';
import { safetyRef, sessionRef } from '../sessions/ids';

export interface Transaction {
  rid: string;
  mode: RestoreMode;
  target: RestoreTarget;
  /** The tree the files go to; null: no file part. */
  codeTree: string | null;
  /** Limits the file part to these paths. */
  paths?: string[];
  conversation: VisibilityChange | null;
  dryRun: boolean;
  undoOf?: string;
}

export interface TransactionOutcome {
  safety: string | null;
  changed: string[];
  skipped: { path: string; reason: string }[];
}

export async function transact(ctx: WorkspaceContext, t: Transaction): Promise<TransactionOutcome> {
  const shadow = await ctx.shadow();
  let safety: string | null = null;
  let planned: string[] = [];
  let skipped: { path: string; reason: string }[] = [];
  if (t.codeTree) {
    const snap = await shadow.snapshotTree();
    const plan = await shadow.planRestore(snap.tree, t.codeTree, t.paths);
    planned = plan.steps.map((s) => s.path);
    skipped = plan.skipped;
    if (t.dryRun) return { safety: null, changed: planned, skipped };
    // The safety checkpoint hangs off the target session's chain, and its own ref keeps it alive (I5).
    const parent = await shadow.readRef(sessionRef(t.target.session));
    safety = await shadow.commit(
      snap.tree,
      parent,
      `retrace: safety checkpoint before ${t.undoOf ? `undo of ${t.undoOf}` : `restore ${t.rid}`}`,
    );
    await shadow.updateRef(safetyRef(t.rid), safety);
    fault('restore:after-safety');
  } else if (t.dryRun) {
    return { safety: null, changed: [], skipped };
  }

  const conversation =
    t.conversation && (t.conversation.hide.length > 0 || t.conversation.show.length > 0) ? t.conversation : null;
  const journal: RestoreJournal = {
    kind: 'restore',
    rid: t.rid,
    ts: new Date().toISOString(),
    mode: t.mode,
    safety,
    paths: planned,
    target: t.target,
    conversation,
    ...(t.undoOf ? { undoOf: t.undoOf } : {}),
  };
  ctx.journal.write(journal);
  fault('restore:after-journal');
  let changed: string[] = [];
  try {
    if (t.codeTree && planned.length > 0) {
      if (faultArmed('restore:mid-apply')) {
        await shadow.applyPaths(t.codeTree, planned.slice(0, Math.ceil(planned.length / 2)));
        fault('restore:mid-apply');
      }
      changed = await shadow.applyPaths(t.codeTree, planned);
    }
    fault('restore:after-apply');
    if (conversation)
      ctx.appendEvents(
        conversation.session,
        visibilityEvents(t.rid, conversation, t.undoOf ? undefined : t.target.message),
      );
    fault('restore:after-rewind');
  } catch (e) {
    // Roll back now; if even that fails, the journal stays and the next command's recovery finishes it.
    await rollBack(ctx, journal, `failed: ${e instanceof Error ? e.message : String(e)}`).catch(() => {});
    throw e;
  }
  const entry: LedgerRestore = {
    type: 'restore',
    rid: t.rid,
    ts: journal.ts,
    mode: t.mode,
    target: t.target,
    safety,
    paths: planned,
    changed,
    conversation,
    ...(t.undoOf ? { undoOf: t.undoOf } : {}),
  };
  ctx.ledger.append(entry);
  fault('restore:after-ledger');
  ctx.journal.clear();
  fault('restore:after-clear');
  return { safety, changed, skipped };
}

function visibilityEvents(rid: string, c: VisibilityChange, to: string | undefined): (RewindEvent | UnrewindEvent)[] {
  const ts = new Date().toISOString();
  const out: (RewindEvent | UnrewindEvent)[] = [];
  if (c.show.length > 0) out.push({ type: 'unrewind', ts, rid, show: c.show });
  if (c.hide.length > 0) out.push({ type: 'rewind', ts, rid, ...(to ? { to } : {}), hide: c.hide });
  return out;
}

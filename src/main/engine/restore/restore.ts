/** `retrace restore`: the files, the conversation, or both, back to a checkpoint — as one undoable transaction. */
import { RetraceError } from '../../../shared/errors';
import type { RestoreMode, RestoreResult, RestoreTarget } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import type { VisibilityChange } from '../journal';
import { checkWorkspacePath } from '../paths';
import { resolveCheckpoint } from '../read/resolve';
import { newRestoreId } from '../sessions/ids';
import { assertWritable } from '../sessions/pulled';
import { transact } from './transaction';

export interface RestoreRequest {
  target: string;
  mode: RestoreMode;
  paths?: string[];
  dryRun?: boolean;
}

/** The caller holds the writer lock. */
export async function restoreLocked(ctx: WorkspaceContext, req: RestoreRequest): Promise<RestoreResult> {
  const paths = req.paths ? await Promise.all(req.paths.map((p) => checkWorkspacePath(ctx.ws.root, p))) : undefined;
  const target = await resolveCheckpoint(ctx, req.target);
  const rid = newRestoreId();
  const conversation = req.mode !== 'code' ? await rewindTo(ctx, target) : null;
  const shadow = await ctx.shadow();
  const out = await transact(ctx, {
    rid,
    mode: req.mode,
    target,
    codeTree: req.mode !== 'conversation' ? await shadow.treeOf(target.hash) : null,
    ...(paths ? { paths } : {}),
    conversation,
    dryRun: req.dryRun === true,
  });
  return {
    restore: rid,
    mode: req.mode,
    target,
    safety: out.safety,
    changed: out.changed,
    hidden: conversation?.hide.length ?? 0,
    dryRun: req.dryRun === true,
    ...(out.skipped.length > 0 ? { skipped: out.skipped } : {}),
  };
}

/** The visibility change that makes `target`'s session end at its message again. */
async function rewindTo(ctx: WorkspaceContext, target: RestoreTarget): Promise<VisibilityChange> {
  assertWritable(ctx.ws.dir, target.session); // a pulled session's conversation is not ours to rewind
  const s = await ctx.sessions.read(target.session);
  const idx = s.messages.findIndex((m) => m.id === target.message);
  if (idx < 0)
    throw new RetraceError('E_UNKNOWN_MESSAGE', `message ${target.message} is not in session ${target.session}`);
  const hide: string[] = [];
  const show: string[] = [];
  s.messages.forEach((m, i) => {
    // An imported abandoned branch (offBranch) was never part of this conversation: it stays hidden (D).
    if (i <= idx && m.hidden && !s.offBranch.has(m.id)) show.push(m.id);
    if (i > idx && !m.hidden) hide.push(m.id);
  });
  return { session: target.session, hide, show };
}

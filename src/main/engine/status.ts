/** `retrace status`: the workspace's figures, the last restore, and what recovery did lately. */
import type { WorkspaceStatus } from '../../shared/model';
import type { WorkspaceContext } from './context';
import { repairLaggingRefs } from './recovery/recover';

/** The caller holds the writer lock (it repairs and packs). */
export async function statusLocked(ctx: WorkspaceContext): Promise<WorkspaceStatus> {
  await repairLaggingRefs(ctx);
  const states = await ctx.sessions.readAll();
  const hashes = new Set<string>();
  for (const s of states) for (const m of s.messages) if (m.hash) hashes.add(m.hash);
  const shadow = await ctx.shadow();
  ctx.recoveryLog.add(await shadow.repair());
  await shadow.maintenance();
  return {
    workspace: ctx.ws.root,
    sessions: states.length,
    checkpoints: hashes.size,
    storageBytes: await shadow.storageBytes(),
    canUndo: (await ctx.ledger.newestRestore()) !== null,
    lastRestore: await ctx.ledger.lastRestore(),
    recovered: await ctx.recoveryLog.recent(),
  };
}

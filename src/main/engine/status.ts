/**
 * `retrace status`: the workspace's figures, the last restore, what recovery did lately, what hooks could not
 * record. A reader (I10): it never waits for the writer lock. What it finds to repair (an interrupted
 * operation, a lagging ref, damage, a stale git lock) it hands to a writer on a try-lock; when another writer
 * is busy it reports the repair as pending, and the next writing command does it (they all start with
 * recovery).
 */
import type { WorkspaceStatus } from '../../shared/model';
import type { WorkspaceContext } from './context';
import { storageBytes } from './maintenance';
import { allArchivedBytes } from './storage/archive';
import { MissedLog } from './missed';
import { detectPendingStable } from './recovery/detect';

export interface StatusHost extends WorkspaceContext {
  /** Run recovery and the repairs under the writer lock if it is free right now; false when it was busy. */
  tryRepair(): Promise<boolean>;
}

export async function readStatus(ctx: StatusHost): Promise<WorkspaceStatus> {
  let states = await ctx.sessions.readAll();
  let pending = await detectPendingStable(ctx, states);
  if (pending.length > 0 && (await ctx.tryRepair())) {
    states = await ctx.sessions.readAll(); // a rolled-back restore changes what the logs show
    pending = await detectPendingStable(ctx, states);
  }
  const hashes = new Set<string>();
  for (const s of states) for (const m of s.messages) if (m.hash) hashes.add(m.hash);
  const missed = await new MissedLog(ctx.ws.dir).recent({ limit: 20 });
  return {
    workspace: ctx.ws.root,
    sessions: states.length,
    checkpoints: hashes.size,
    storageBytes: await storageBytes(ctx),
    archiveBytes: await allArchivedBytes(ctx.ws),
    canUndo: (await ctx.ledger.newestRestore()) !== null,
    lastRestore: await ctx.ledger.lastRestore(),
    recovered: await ctx.recoveryLog.recent(),
    ...(pending.length > 0 ? { pendingRepairs: pending } : {}),
    ...(missed.length > 0 ? { missed } : {}),
  };
}

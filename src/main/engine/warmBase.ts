/**
 * The periodic full scan, off the hook's path (issue 15). A warm checkpoint (shadow/warmScope.ts) builds on
 * the last snapshot's tree and looks only at the hinted paths; every WARM_MAX_STREAK calls or WARM_MAX_AGE_MS
 * a full scan runs instead, inside a hook call (600–800 ms at 100k files). A long-lived host (the hook server,
 * which is idle while the model thinks) runs that scan between calls instead:
 *
 *   1. without the lock: when due (refreshDue: half the limits used), a full scan into a private index —
 *      the same scan a reader's diff to the files now makes, so it disagrees with no other full scan;
 *   2. under the lock, only if it is free right now (never queued before a hook call): its tree becomes the
 *      base of the next warm snapshot, as if a full scan had run when it began — only if nothing was recorded
 *      (nor forced, nor repaired) since; otherwise it is dropped and tried again later.
 *
 * So a hook call never waits for the scan, only, at worst, for the few milliseconds of step 2; unhinted
 * changes reach a checkpoint at least as often as before (the in-call limits still hold when no refresh
 * succeeded). The one-shot CLI has no scheduler: it keeps the in-call full scans.
 */
import type { WorkspaceContext } from './context';
import { tryWithLock } from './lock';
import type { WorkspaceRef } from './workspace';

export type WarmRefreshOutcome = 'not-due' | 'adopted' | 'raced' | 'busy';

/** Run a background refresh now (the host decides when: see setWarmRefreshScheduler). */
export async function refreshWarmBase(ctx: WorkspaceContext, actor: string): Promise<WarmRefreshOutcome> {
  const shadow = await ctx.shadow();
  const base = await shadow.prepareWarmBase();
  if (!base) return 'not-due';
  const r = await tryWithLock(ctx.ws, () => shadow.adoptWarmBase(base), { command: `${actor} (background scan)` });
  if (!r.ran) return 'busy';
  return r.value ? 'adopted' : 'raced';
}

/** Queues a refresh of a workspace for when its host is idle; never runs it inside the caller's call. */
export type WarmRefreshScheduler = (ws: WorkspaceRef, refresh: () => Promise<WarmRefreshOutcome>) => void;

let scheduler: WarmRefreshScheduler | null = null;

/** Set by the hook server; none elsewhere (a one-shot process would not live to run it). */
export function setWarmRefreshScheduler(s: WarmRefreshScheduler | null): void {
  scheduler = s;
}

/** After a recorded checkpoint: let the host refresh this workspace's warm base when it is idle. */
export function scheduleWarmRefresh(ws: WorkspaceRef, refresh: () => Promise<WarmRefreshOutcome>): void {
  try {
    scheduler?.(ws, refresh);
  } catch {
    // The next checkpoint schedules again; the in-call limits hold meanwhile.
  }
}

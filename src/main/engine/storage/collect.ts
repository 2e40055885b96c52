/**
 * `retrace gc` and `retrace forget` (issue 14 item 5): sessions age out oldest first (by last activity) — those
 * older than keepDays, then more until the storage is within maxBytes (only sessions whose removal frees objects:
 * see oldestToFree) — except the ones keep.ts protects.
 * Removing a session drops its ref, its log and its archived transcript, then collects: the objects only it
 * reached leave the disk now, under the writer lock, so the figure falls at once.
 *
 * Restores stay undoable (I5, I14): their safety checkpoints have their own refs, owned by the ledger, and are
 * never removed here, so undoing a restore of files still works after the session it targeted is forgotten
 * (what that safety checkpoint reaches stays on disk with it). Undoing a conversation restore of a forgotten
 * session says E_UNKNOWN_SESSION and changes nothing.
 */
import { RetraceError } from '../../../shared/errors';
import type { GcResult, SessionSummary, StorageBudget } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import { refreshStorage } from '../maintenance';
import { sessionRef } from '../sessions/ids';
import { dropAttic } from '../shadow/attic';
import { removeArchive } from './archive';
import { keepReasons, LABEL_PREFIX, SESSION_PREFIX } from './keep';
import { promises as fs } from 'node:fs';

const DAY_MS = 86_400_000;
/** Estimates can be off (deltas against removed objects): measure and go on at most this many times. */
const MAX_ROUNDS = 3;

export interface StorageHost extends WorkspaceContext {
  /** Drop a session's log and ref (the caller holds the lock). */
  deleteSessionLocked(id: string): Promise<void>;
}

/** The caller holds the writer lock. */
export async function gcLocked(host: StorageHost, budget: StorageBudget, now = Date.now()): Promise<GcResult> {
  const all = await host.sessions.summaries();
  const kept = await keepReasons(host, all, now);
  const oldestFirst = [...all].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));
  const candidates = oldestFirst.filter((s) => !kept.has(s.id));
  const removed: string[] = [];
  let storageBytes = await refreshStorage(host);

  // Past keepDays: out, whatever the budget.
  const cutoff = budget.keepDays === null ? null : now - budget.keepDays * DAY_MS;
  const expired = cutoff === null ? [] : candidates.filter((s) => Date.parse(s.updatedAt) < cutoff);
  let rest = candidates.filter((s) => !expired.includes(s));
  let batch = expired.map((s) => s.id);

  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (budget.maxBytes !== null && storageBytes > budget.maxBytes) {
      const more = await oldestToFree(host, batch, rest, storageBytes - budget.maxBytes);
      batch = [...batch, ...more.map((s) => s.id)];
      rest = rest.filter((s) => !more.includes(s));
    }
    if (batch.length === 0 && round > 0) break;
    storageBytes = await removeAndCollect(host, batch);
    removed.push(...batch);
    batch = [];
    if (budget.maxBytes === null || storageBytes <= budget.maxBytes || rest.length === 0) break;
  }
  return {
    removed,
    storageBytes,
    kept: oldestFirst.filter((s) => kept.has(s.id)).map((s) => ({ session: s.id, reason: kept.get(s.id)! })),
    underBudget: budget.maxBytes === null || storageBytes <= budget.maxBytes,
    budget,
  };
}

/** One session whatever its age; a kept one (labelled, being recorded) only with `force`. Holds the lock. */
export async function forgetLocked(
  host: StorageHost,
  id: string,
  opts: { force?: boolean; now?: number } = {},
): Promise<GcResult> {
  if (!host.sessions.exists(id)) throw new RetraceError('E_UNKNOWN_SESSION', `no session ${id} in this workspace`);
  const all = await host.sessions.summaries();
  const reason = (await keepReasons(host, all, opts.now ?? Date.now())).get(id);
  if (reason && !opts.force)
    throw new RetraceError('E_KEPT', `session ${id} is ${reason}; \`retrace forget --force ${id}\` removes it anyway`);
  const shadow = await host.shadow();
  // Forced over a label: the labels only this session reaches go with it (another session's stay).
  const chain = new Set(await shadow.chain(sessionRef(id)).catch(() => [] as string[]));
  const ownLabels = (await shadow.peeledRefs(LABEL_PREFIX)).filter((l) => chain.has(l.commit));
  const storageBytes = await removeAndCollect(host, [id], async () => {
    for (const l of ownLabels)
      if ((await shadow.refsContaining([l.commit], SESSION_PREFIX)).length === 0) await shadow.deleteRef(l.ref);
  });
  return { removed: [id], storageBytes, kept: [], underBudget: true };
}

/**
 * Sessions of `rest` to remove (with `batch`) so that at least `excess` bytes are freed, oldest first — estimated
 * with git's own disk usage of the objects no remaining ref reaches, plus the logs. A session is taken only if
 * taking it frees objects: one whose snapshots a kept session still reaches (a later session continues from
 * it, record.ts) would lose its history for nothing but its log, so it waits — a later pass takes it once what
 * reached it is going too. Fewer than needed when no more can be freed.
 */
async function oldestToFree(
  host: StorageHost,
  batch: readonly string[],
  rest: readonly SessionSummary[],
  excess: number,
): Promise<SessionSummary[]> {
  const shadow = await host.shadow();
  const allRefs = (await shadow.listRefs('refs/')).map((r) => r.ref);
  const logBytes = async (id: string): Promise<number> =>
    (await fs.stat(host.sessions.file(id)).catch(() => null))?.size ?? 0;
  const freedBy = async (ids: readonly string[]): Promise<number> => {
    const going = new Set(ids.map(sessionRef));
    let bytes = await shadow.uniqueDiskUsage(
      allRefs.filter((r) => going.has(r)),
      allRefs.filter((r) => !going.has(r)),
    );
    for (const id of ids) bytes += await logBytes(id);
    return bytes;
  };
  const chosen: SessionSummary[] = [];
  let freed = await freedBy(batch);
  for (let progress = true; progress && freed < excess;) {
    progress = false;
    for (const s of rest) {
      if (chosen.includes(s)) continue;
      const next = await freedBy([...batch, ...chosen.map((c) => c.id), s.id]);
      if (next - freed <= (await logBytes(s.id))) continue; // frees no object (yet)
      chosen.push(s);
      freed = next;
      progress = true;
      if (freed >= excess) break;
    }
  }
  return rest.filter((s) => chosen.includes(s)); // oldest first
}

/** Drop the sessions (and what `alsoLocked` drops), then the objects nothing reaches any more; the new figure. */
async function removeAndCollect(
  host: StorageHost,
  ids: readonly string[],
  alsoLocked?: () => Promise<void>,
): Promise<number> {
  const shadow = await host.shadow();
  // Their loose objects into a pack first: the repack below drops packed objects no ref reaches, and leaves
  // loose ones alone (a reader's snapshot in flight may be among them).
  if (ids.length > 0) await shadow.packLoose();
  for (const id of ids) {
    await host.deleteSessionLocked(id);
    await removeArchive(host.ws, id);
  }
  await alsoLocked?.();
  // Files restores replaced, kept for a while to be put back (attic.ts): what is forgotten goes with them too.
  dropAttic(host.ws.dir);
  await shadow.repackReachable();
  return refreshStorage(host);
}

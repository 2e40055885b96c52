/**
 * Background upkeep of a workspace (issue 10 item 2, I10): packing the shadow repository, collecting what no
 * ref needs, the repairs a reader found pending, the cached storage figure `status` shows.
 *
 * It never runs inside a hook call and never waits for the writer lock: it runs after the call that
 * scheduled it returned (a detached `retrace maintenance` for the one-shot CLI, in-process for long-lived
 * hosts: the service, the hook server), looks first without the lock, and takes the lock only if it is free
 * right now (tryWithLock); when another writer is busy it skips, and the next chance does it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { WorkspaceContext } from './context';
import { repairLaggingRefs } from './recovery/recover';
import { writeFilePrivate } from './privateFs';
import { measureStorage } from './storage/measure';
import type { WorkspaceRef } from './workspace';

/** Unreferenced objects younger than this survive gc: a reader's private snapshot, a writer mid-checkpoint. */
export const GC_PRUNE_EXPIRE = '2.weeks.ago';
/** An incremental pack at this many loose objects; a full gc at this many packs. */
const PACK_LOOSE = 2_000;
const PACK_PACKS = 20;
/**
 * A small store (packs up to this size) is fully gc'd once its loose objects weigh a tenth of its packs: an
 * incremental pack stores each edited file whole (it finds no delta base among the loose objects alone), so a
 * small project's history grew 1.4× one packed copy in 100 checkpoints, while a full gc of a store this small is
 * short enough to hold the writer lock for (issue 15: store ≤ 1.2× one packed copy): measured here, ~1 s for a 7 MB
 * store and ~2 s for 25 MB unloaded; a loaded 2-core machine stretches that about fourfold (docs/reliability.md),
 * and a hook call waits 10 s for the lock at most, so the bound stays well below that.
 */
const SMALL_STORE_BYTES = 16 * 2 ** 20;
const LOOSE_SHARE = 0.1;
/** Below this, loose objects are not worth a gc even in a tiny store. */
const LOOSE_MIN_BYTES = 256 * 2 ** 10;
/** One recorded checkpoint in this many (on average) schedules a maintenance run. */
export const MAINTENANCE_CHANCE = 1 / 50;
/** The cached storage figure is recomputed by a reader when older than this. */
const STORAGE_TTL_MS = 60_000;
const STORAGE_FILE = 'storage.json';

export interface MaintenanceOutcome {
  /** False when nothing was done: nothing was due, or another writer held the lock (then `holder` says who). */
  ran: boolean;
  packed: boolean;
  holder?: string;
}

/** Which packing is due, if any. Read-only (`git count-objects`). */
export async function packDue(ctx: WorkspaceContext): Promise<'gc' | 'pack' | null> {
  return packingFor(await (await ctx.shadow()).objectCounts());
}

/** The packing policy on `count-objects` figures (bytes on disk of loose objects and of packs). */
export function packingFor(c: {
  loose: number;
  packs: number;
  looseBytes: number;
  packBytes: number;
}): 'gc' | 'pack' | null {
  if (c.packs >= PACK_PACKS) return 'gc';
  const weighty = c.looseBytes >= Math.max(LOOSE_MIN_BYTES, LOOSE_SHARE * c.packBytes);
  if (c.packBytes <= SMALL_STORE_BYTES && weighty) return 'gc';
  return c.loose >= PACK_LOOSE ? 'pack' : null;
}

/**
 * The upkeep itself. The caller holds the writer lock (and ran recovery), so it does only what must be done
 * under it: the repairs a look without the lock found needed (`repair`), and the packing that is due. Every
 * read-only part (verifying objects, measuring storage) runs before or after, without the lock: the first
 * trial had a hook give up behind a maintenance run that verified thousands of objects under the lock.
 */
export async function maintainLocked(
  ctx: WorkspaceContext,
  opts: { pack: boolean; repair: boolean },
): Promise<{ packed: boolean }> {
  const shadow = await ctx.shadow();
  if (opts.repair) {
    // Damage first: a half-written ref file must be set aside before a lagging ref is moved.
    ctx.recoveryLog.add(await shadow.repair());
    await repairLaggingRefs(ctx);
  }
  // Loose objects pile up one checkpoint at a time: an incremental pack (short). Packs pile up one such run at
  // a time: now and then, a full gc into one pack, dropping what no ref has needed for GC_PRUNE_EXPIRE.
  const due = opts.pack ? await packDue(ctx) : null;
  if (due === 'pack') await shadow.packLoose();
  if (due === 'gc') await shadow.gc(GC_PRUNE_EXPIRE);
  return { packed: due !== null };
}

/** Measure the storage now and cache it (after packing or collecting; read-only, no lock). */
export async function refreshStorage(ctx: WorkspaceContext): Promise<number> {
  const bytes = await measureStorage(ctx);
  await writeStorage(ctx.ws, bytes);
  return bytes;
}

/** Bytes the history takes (storage/measure.ts): the cached figure while fresh, else measured (read-only) and cached. */
export async function storageBytes(ctx: WorkspaceContext): Promise<number> {
  const cached = await readStorage(ctx.ws);
  if (cached && Date.now() - cached.at < STORAGE_TTL_MS) return cached.bytes;
  return refreshStorage(ctx);
}

async function readStorage(ws: WorkspaceRef): Promise<{ bytes: number; at: number } | null> {
  try {
    const j = JSON.parse(await fs.readFile(path.join(ws.dir, STORAGE_FILE), 'utf8')) as {
      bytes?: unknown;
      at?: unknown;
    };
    return typeof j.bytes === 'number' && typeof j.at === 'number' ? { bytes: j.bytes, at: j.at } : null;
  } catch {
    return null;
  }
}

/** A cache any process may write: replaced atomically, and the last writer's figure is as good as any. */
async function writeStorage(ws: WorkspaceRef, bytes: number): Promise<void> {
  const file = path.join(ws.dir, STORAGE_FILE);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await writeFilePrivate(tmp, JSON.stringify({ bytes, at: Date.now() }));
    await fs.rename(tmp, file);
  } catch {
    await fs.rm(tmp, { force: true }).catch(() => undefined); // a cache: never fail the caller for it
  }
}

// ---------------------------------------------------------------------------------------------------------
// Scheduling: how a run starts after the call that asked for it has returned.

/** Starts a maintenance run of a workspace without waiting for it. */
export type MaintenanceScheduler = (ws: WorkspaceRef, runInProcess: () => Promise<unknown>) => void;

/** Runs in flight in this process (one per workspace is enough). */
const running = new Set<string>();

/** Long-lived hosts (the service, the hook server, tests): in this process, once the current call is done. */
const inProcess: MaintenanceScheduler = (ws, run) => {
  if (running.has(ws.dir)) return;
  running.add(ws.dir);
  setImmediate(
    () =>
      void run()
        .catch(() => undefined)
        .finally(() => running.delete(ws.dir)),
  );
};

let scheduler: MaintenanceScheduler = inProcess;

/**
 * The one-shot CLI exits as soon as its command is done: it sets a scheduler that starts a detached process.
 * Returns the one it replaces (a test holds scheduled runs back and puts it back).
 */
export function setMaintenanceScheduler(s: MaintenanceScheduler): MaintenanceScheduler {
  const was = scheduler;
  scheduler = s;
  return was;
}

/**
 * A long-lived host looks at least once in this many of its checkpoints of a workspace: by chance alone, a busy
 * session could go a hundred checkpoints or more between looks, its loose objects piling up all the while.
 */
export const MAINTENANCE_EVERY = 20;
/** Checkpoints recorded by this process per workspace since its last scheduled look. */
const sinceLook = new Map<string, number>();

/** After a recorded checkpoint: now and then, start a maintenance run (never awaited by the caller). */
export function maybeScheduleMaintenance(
  ws: WorkspaceRef,
  run: () => Promise<unknown>,
  chance = MAINTENANCE_CHANCE,
): void {
  const since = (sinceLook.get(ws.dir) ?? 0) + 1;
  if (Math.random() >= chance && since < MAINTENANCE_EVERY) {
    sinceLook.set(ws.dir, since);
    return;
  }
  sinceLook.delete(ws.dir);
  try {
    scheduler(ws, run);
  } catch {
    // Could not start one: the next chance will.
  }
}

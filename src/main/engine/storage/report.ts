/**
 * Storage per session (`retrace sessions`, the app's Storage dialog): for each session, what forgetting it
 * would free — the objects no other session, label or safety checkpoint reaches (git's disk usage), its log and
 * its archived transcript — and whether gc keeps it. A reader: no lock.
 */
import { promises as fs } from 'node:fs';
import type { SessionStorage, StorageReport } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import { storageBytes } from '../maintenance';
import { sessionRef } from '../sessions/ids';
import { allArchivedBytes, archivedBytes } from './archive';
import { readBudget } from './budget';
import { keepReasons } from './keep';

export async function storageReport(ctx: WorkspaceContext, now = Date.now()): Promise<StorageReport> {
  const all = await ctx.sessions.summaries();
  const kept = await keepReasons(ctx, all, now);
  const bytes = await sessionBytes(
    ctx,
    all.map((s) => s.id),
  );
  const sessions: SessionStorage[] = all
    .map((s) => ({
      id: s.id,
      title: s.title,
      agent: s.agent,
      updatedAt: s.updatedAt,
      bytes: bytes.get(s.id)!.bytes,
      archiveBytes: bytes.get(s.id)!.archiveBytes,
      kept: kept.get(s.id) ?? null,
    }))
    .sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));
  return {
    storageBytes: await storageBytes(ctx),
    archiveBytes: await allArchivedBytes(ctx.ws),
    budget: await readBudget(ctx.ws),
    sessions,
  };
}

/** Per session: the bytes forgetting it would free, and its archive's share of them. */
export async function sessionBytes(
  ctx: WorkspaceContext,
  ids: readonly string[],
): Promise<Map<string, { bytes: number; archiveBytes: number }>> {
  const shadow = await ctx.shadow();
  const refs = (await shadow.listRefs('refs/')).map((r) => r.ref);
  const present = new Set(refs);
  const out = new Map<string, { bytes: number; archiveBytes: number }>();
  for (const id of ids) {
    const own = sessionRef(id);
    const objects = present.has(own)
      ? await shadow.uniqueDiskUsage(
          [own],
          refs.filter((r) => r !== own),
        )
      : 0;
    const log = (await fs.stat(ctx.sessions.file(id)).catch(() => null))?.size ?? 0;
    const archiveBytes = await archivedBytes(ctx.ws, id);
    out.set(id, { bytes: objects + log + archiveBytes, archiveBytes });
  }
  return out;
}

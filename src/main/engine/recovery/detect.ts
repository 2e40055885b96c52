/**
 * What recovery or repair would do, found without the writer lock and without changing anything (I10):
 * `retrace status` and background maintenance look first, and take the lock (a try-lock, never a wait) only
 * when there is something to do. A reader that finds damage never repairs it itself.
 */
import { RetraceError } from '../../../shared/errors';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { WorkspaceContext } from '../context';
import { deadStagedLocks, staleLockReason, writerBusy } from '../lock';
import type { SessionState } from '../sessions/replay';
import { laggingRefs } from './recover';

/** Git lock files older than this, found by a reader, are reported: the next writer removes them (lock.ts). */
const GIT_LOCK_REPORT_MS = 10_000;

/**
 * What a writer killed midway left looks, for a moment, like what a live writer is doing (its journal, its ref
 * between log line and update-ref). So: look; if anything shows, make sure no writer holds the lock, look
 * again with fresh logs, and keep only what both looks saw (each item names its checkpoint or restore, so a
 * writer that started meanwhile cannot repeat one). Nothing is reported while a writer is busy: every writer
 * starts with recovery anyway.
 */
export async function detectPendingStable(ctx: WorkspaceContext, states: SessionState[]): Promise<string[]> {
  if (await writerBusy(ctx.ws)) return [];
  const first = await detectPending(ctx, states);
  if (first.length === 0 || (await writerBusy(ctx.ws))) return [];
  const again = new Set(await detectPending(ctx, await ctx.sessions.readAll()));
  return first.filter((p) => again.has(p));
}

export async function detectPending(ctx: WorkspaceContext, states: SessionState[]): Promise<string[]> {
  const pending: string[] = [];
  const stale = await staleLockReason(ctx.ws);
  if (stale) pending.push(stale);
  for (const n of await deadStagedLocks(ctx.ws))
    pending.push(`${n}, left by a writer that died taking the lock, to remove`);
  const j = ctx.journal.read();
  if (j)
    pending.push(
      `an interrupted ${j.kind} (${j.kind === 'restore' ? j.rid : `${j.session} ${j.hash.slice(0, 7)}`}, ${j.ts}) to finish or roll back`,
    );
  pending.push(...(await staleGitLocks(path.join(ctx.ws.dir, 'shadow.git'))));
  const shadow = await ctx.shadow().catch((e: unknown) => {
    // Not damage: a repository Retrace cannot use at all (another object format) is the answer itself.
    if (e instanceof RetraceError && e.code === 'E_UNSUPPORTED') throw e;
    return null;
  });
  if (!shadow) {
    pending.push('the shadow repository cannot be opened: repair it');
    return pending;
  }
  const problems = await shadow
    .inspect()
    .catch((e: unknown) => [`the repository check failed: ${(e as Error).message}`]);
  pending.push(...problems);
  if (problems.length > 0) return pending; // lag detection reads the repository: not while it is damaged
  try {
    for (const lag of await laggingRefs(ctx, states)) {
      pending.push(`session ${lag.session}: ref lags behind its log (to move to ${lag.to.slice(0, 7)})`);
    }
  } catch (e) {
    pending.push(`the ref check failed: ${(e as Error).message}`);
  }
  return pending;
}

async function staleGitLocks(gitDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await fs.readdir(gitDir).catch(() => [] as string[])) {
    if (!name.endsWith('.lock')) continue;
    const st = await fs.lstat(path.join(gitDir, name)).catch(() => null);
    if (st && Date.now() - st.mtimeMs > GIT_LOCK_REPORT_MS) out.push(`a stale git lock shadow.git/${name} to remove`);
  }
  return out;
}

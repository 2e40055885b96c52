/**
 * Recovery (I8): runs under the writer lock at the start of every writing command. It finishes or undoes what a
 * killed process left in the journal, and moves session refs that lag behind their logs.
 */
import type { WorkspaceContext } from '../context';
import { fault } from '../faults';
import type { RestoreJournal } from '../journal';
import type { RewindEvent, UnrewindEvent } from '../sessions/events';
import { sessionRef } from '../sessions/ids';
import { settleLeftovers } from '../shadow/leftovers';
import { loadModes, reapplyModes } from '../restore/modes';
import { canPark, park, retryParkedRollback } from './parked';
import type { SessionState } from '../sessions/replay';
import { givenUp } from '../read/resolve';
import { report } from './report';

export async function recover(ctx: WorkspaceContext): Promise<void> {
  const j = ctx.journal.read();
  if (!j) {
    await retryParkedRollback(ctx);
    return;
  }
  if (j.kind === 'checkpoint') {
    const s = await ctx.sessions.read(j.session).catch(() => null);
    if (s?.messages.some((m) => m.hash === j.hash)) {
      const shadow = await ctx.shadow();
      const tip = await shadow.readRef(sessionRef(j.session));
      if (tip !== j.hash) {
        await shadow.updateRef(sessionRef(j.session), j.hash, tip);
        ctx.recoveryLog.add([
          report(
            'checkpoint-ref-repaired',
            `session ${j.session}: an interrupted checkpoint's ref was moved to ${j.hash.slice(0, 7)}`,
          ),
        ]);
      }
    }
    ctx.journal.clear();
    return;
  }
  const entries = await ctx.ledger.entries();
  if (entries.some((e) => e.rid === j.rid)) {
    // The restore finished (or was already rolled back); only the journal's removal was lost.
    ctx.journal.clear();
    return;
  }
  try {
    await rollBack(ctx, j, 'was interrupted');
  } catch (e) {
    // A busy file or a full disk must not stop recording: the rollback waits, and restores wait for it.
    if (!canPark(e)) throw e;
    await park(ctx, j, e);
  }
}

/**
 * Put a restore's files back to its safety checkpoint and cancel its visibility events. Idempotent.
 * Only paths that still hold what the restore wrote are changed back (I9): one that someone changed since is left
 * as it is and named. A killed apply's side files are settled first (shadow/leftovers.ts).
 */
export async function rollBack(ctx: WorkspaceContext, j: RestoreJournal, why: string): Promise<void> {
  let restored: string[] = [];
  const kept: string[] = [];
  if (j.safety && j.paths.length > 0) {
    const shadow = await ctx.shadow();
    const root = ctx.ws.root;
    const wrote = j.codeTree ? await shadow.blobsAt(j.codeTree, j.paths) : null;
    kept.push(...(await settleLeftovers(root, j.rid, j.paths, wrote ?? new Map(), { oldIsOurs: false })));
    await settleLeftovers(root, `${j.rid}r`, j.paths, new Map(), { oldIsOurs: true });
    restored = await shadow.applyPaths(await shadow.treeOf(j.safety), j.paths, {
      tag: `${j.rid}r`,
      ...(wrote ? { expect: (rel: string) => ({ blob: wrote.get(rel) ?? null }), onChanged: 'keep', kept } : {}),
    });
    const modes = await loadModes(ctx.ws.dir, j.rid);
    if (modes) await reapplyModes(root, modes, restored);
  }
  fault('recovery:after-rollback');
  if (j.conversation) {
    const s = await ctx.sessions.read(j.conversation.session);
    const own = s.visibility.filter((ev) => ev.rid === j.rid);
    if (own.length > 0 && !own.some((ev) => ev.compensates)) {
      const cancel: (RewindEvent | UnrewindEvent)[] = [];
      const ts = new Date().toISOString();
      for (const ev of own.reverse()) {
        if (ev.type === 'rewind') cancel.push({ type: 'unrewind', ts, rid: j.rid, show: ev.hide, compensates: true });
        else cancel.push({ type: 'rewind', ts, rid: j.rid, hide: ev.show, compensates: true });
      }
      ctx.appendEvents(j.conversation.session, cancel);
    }
  }
  fault('recovery:after-compensate');
  const what = `${j.undoOf ? `undo of ${j.undoOf}` : `restore ${j.rid}`} (${j.mode} to ${j.target.hash.slice(0, 7)}) ${why}; rolled back`;
  const keptNote = kept.length > 0 ? `; left as changed since: ${kept.join(', ')}` : '';
  const detail = `${what}${j.paths.length ? `: ${restored.length} of ${j.paths.length} file(s) put back` : ''}${keptNote}`;
  ctx.ledger.append({ type: 'rollback', rid: j.rid, ts: new Date().toISOString(), detail });
  ctx.recoveryLog.add([report('restore-rolled-back', detail)]);
  ctx.journal.clear();
}

/** Session refs that lag behind their log's last checkpoint (killed between append and update-ref). Read-only. */
export async function laggingRefs(
  ctx: WorkspaceContext,
  states?: SessionState[],
): Promise<{ session: string; ref: string; from: string | null; to: string }[]> {
  const shadow = await ctx.shadow();
  const refs = new Map((await shadow.listRefs('refs/retrace/sessions/')).map((r) => [r.ref, r.hash]));
  // A checkpoint a repair gave up, or salvaged under another commit, is where the repair left the ref: no lag.
  const given = await givenUp(ctx);
  const out: { session: string; ref: string; from: string | null; to: string }[] = [];
  for (const s of states ?? (await ctx.sessions.readAll())) {
    const last = [...s.messages].reverse().find((m) => m.hash);
    if (!last?.hash || given.has(last.hash)) continue;
    const ref = sessionRef(s.header.id);
    const tip = refs.get(ref) ?? null;
    if (tip === last.hash || !(await shadow.commitExists(last.hash))) continue;
    if (tip !== null && (await shadow.parentOf(last.hash)) !== tip) continue; // not a lag: leave it alone
    out.push({ session: s.header.id, ref, from: tip, to: last.hash });
  }
  return out;
}

/** Move lagging session refs to their log's last checkpoint. The caller holds the writer lock. */
export async function repairLaggingRefs(ctx: WorkspaceContext): Promise<void> {
  const shadow = await ctx.shadow();
  for (const lag of await laggingRefs(ctx)) {
    await shadow.updateRef(lag.ref, lag.to, lag.from);
    ctx.recoveryLog.add([
      report(
        'checkpoint-ref-repaired',
        `session ${lag.session}: ref moved to its last checkpoint ${lag.to.slice(0, 7)}`,
      ),
    ]);
  }
}

/**
 * One restore transaction — a restore, a revert or an undo — in an order that a kill at any moment leaves recoverable:
 *
 *   safety snapshot (with identities + free space + modes, prepare.ts) → safety commit, modes file and journal
 *   (durable in one round) → safety ref → apply files (fsynced) → visibility events → ledger entry → clear journal
 *
 * Nothing written meanwhile is lost (I9): each planned path's identity is taken with the safety snapshot
 * (fileIdentity.ts) and the apply compares against it right before it replaces or deletes the path; a file
 * that changed stops the restore (E_CHANGED_DURING_RESTORE), rolled back. Exact permission bits and folders are
 * kept beside the safety checkpoint (modes.ts) for undo and rollback (I11). A thrown error rolls back what was
 * done; a kill is rolled back by the next command's recovery (recovery/).
 */
import { RetraceError } from '../../../shared/errors';
import type { RestoreTarget } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import { fault, faultArmed } from '../faults';
import type { RestoreJournal, VisibilityChange } from '../journal';
import type { LedgerMode, LedgerRestore } from '../ledger';
import { rollBack } from '../recovery/recover';
import type { RewindEvent, UnrewindEvent } from '../sessions/events';
import { safetyRef, sessionRef } from '../sessions/ids';
import { Attic } from '../shadow/attic';
import { nowNs, type Expectation } from '../shadow/fileIdentity';
import type { PlacedFile } from '../shadow/restore';
import { loadModes, reapplyModes, writeModes } from './modes';
import { prepare, prepareAhead, type Prepared } from './prepare';
import { finishParkedRollback } from '../recovery/parked';
import { step } from '../stepTrace';

/** A file that keeps changing while the safety snapshot is taken: this many snapshots, then stop. */
const SNAPSHOT_ATTEMPTS = 2;

export interface Transaction {
  rid: string;
  mode: LedgerMode;
  target: RestoreTarget;
  /**
   * The tree the files go to; null: no file part. A function computes it from the safety snapshot (a revert
   * merges into the files as that snapshot saw them, so what I9 compares against is what the merge read).
   */
  codeTree: string | null | ((snapshotTree: string) => Promise<string>);
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
  // A rollback that could not finish (a busy file, a full disk) comes first: a new restore over it would lose it.
  await step('parked', () => finishParkedRollback(ctx));
  const shadow = await ctx.shadow();
  let safety: string | null = null;
  let planned: string[] = [];
  let skipped: { path: string; reason: string }[] = [];
  let expect = new Map<string, Expectation>();
  /** What the plan already read (codeTree's entries, blob sizes) or asked for: the apply need not ask git again. */
  let known: Partial<Prepared['known']> = {};
  let codeTree: string | null = typeof t.codeTree === 'function' ? null : t.codeTree;
  /** What the journal's round makes durable with it: the safety commit and the modes file (written unsynced). */
  let toSync: { files: string[]; dirs: string[] } | null = null;
  /** Once the files are in place, the shadow index takes them too (stageRestored.ts): the next snapshot is cheap. */
  let stageApplied: (() => Promise<boolean>) | undefined;
  /** What the apply wrote, as it was written: the staging need not hash it again where it is still so. */
  const placed = new Map<string, PlacedFile>();
  /**
   * The files this transaction replaces are kept there, and earlier ones taken back from there (attic.ts). Opened
   * while the first snapshot scans, before anything is read ahead: what it holds is not read (prepare.ts).
   */
  let attic: Attic | null = null;
  if (t.codeTree) {
    for (let attempt = 1; ; attempt++) {
      const startedNs = nowNs();
      // Not a dry run: the apply writes into the folder next, so the next snapshot's full scan is forced with this one.
      const snapping = step('snapshot', () => shadow.snapshotTree({ beforeWrites: !t.dryRun }));
      snapping.catch(() => {}); // awaited below, once the work beside it has started
      // The scan's git process starts in the snapshot's first turns: the rest of this turn waits for it to be running.
      await new Promise((resolve) => setImmediate(resolve));
      if (attempt === 1 && !t.dryRun) attic = Attic.open(ctx.ws.dir, ctx.ws.root, t.rid);
      // Prepared from the last snapshot's tree while this one scans (prepare.ts); taken if it names that tree.
      // A dry run only plans, ahead too.
      const aheadTo = attempt === 1 && typeof t.codeTree === 'string' ? t.codeTree : null;
      const aheadPlan = aheadTo && t.dryRun ? shadow.planAhead(aheadTo, t.paths) : null;
      const ahead =
        aheadTo && !t.dryRun ? prepareAhead({ ctx, shadow, startedNs, codeTree: aheadTo, attic, ...pathsOf(t) }) : null;
      const snap = await snapping.catch(async (e: unknown) => {
        await Promise.all([ahead, aheadPlan]); // nothing of this transaction runs on once it has ended
        throw e;
      });
      if (typeof t.codeTree === 'function') codeTree = await t.codeTree(snap.tree);
      let prepared = ahead ? await ahead : null;
      if (prepared?.fromTree !== snap.tree) prepared = null;
      if (!prepared) {
        const made = aheadPlan ? await aheadPlan : null;
        const plan =
          made?.from === snap.tree
            ? made.plan
            : await step('plan', () => shadow.planRestore(snap.tree, codeTree!, t.paths));
        if (t.dryRun) return { safety: null, changed: plan.steps.map((s) => s.path), skipped: plan.skipped };
        try {
          prepared = await prepare({ ctx, shadow, plan, fromTree: snap.tree, startedNs, attic });
        } catch (e) {
          // Nothing is written yet: a file that moved during the snapshot just needs a newer safety snapshot.
          if (e instanceof RetraceError && e.code === 'E_CHANGED_DURING_RESTORE' && attempt < SNAPSHOT_ATTEMPTS)
            continue;
          throw e;
        }
      }
      const { plan, modes } = prepared;
      planned = plan.steps.map((s) => s.path);
      skipped = plan.skipped;
      ({ expect, known } = prepared);
      const whole = plan.whole ? { wholeTo: codeTree! } : {};
      const { blobSizes } = prepared.known;
      stageApplied = () => shadow.stageRestored(snap.tree, { steps: plan.steps, ...whole }, blobSizes, placed);
      // The safety checkpoint hangs off the target session's chain, and its own ref keeps it alive (I5).
      const parent = await shadow.readRef(sessionRef(t.target.session));
      // The safety commit and the modes file are written unsynced: the journal's round makes them durable (below).
      const [commit, modesFiles] = await Promise.all([
        step('safety', () =>
          shadow.commit(
            snap.tree,
            parent,
            `retrace: safety checkpoint before ${t.undoOf ? `undo of ${t.undoOf}` : `${t.mode === 'revert' ? 'revert' : 'restore'} ${t.rid}`}`,
            { durable: false },
          ),
        ),
        step('modesFile', () => writeModes(ctx.ws.dir, t.rid, modes)),
      ]);
      const objects = shadow.objectPaths([commit]);
      toSync = { files: [...objects.files, ...modesFiles.files], dirs: [...objects.dirs, ...modesFiles.dirs] };
      safety = commit;
      break;
    }
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
    ...(codeTree ? { codeTree } : {}),
    ...(t.undoOf ? { undoOf: t.undoOf } : {}),
  };
  if (toSync) {
    // One round for the safety commit, the modes file and the journal: their fsyncs at once, then their folders',
    // then the journal's rename. A crash before it leaves no journal, and nothing in the folder was touched yet.
    const synced = toSync;
    await step('journal', () => ctx.journal.writeWith(journal, synced, { firstDurable: true }));
    await step('safety.ref', () => shadow.updateRef(safetyRef(t.rid), safety!));
  } else await step('journal', () => ctx.journal.write(journal));
  fault('restore:after-journal');
  let changed: string[] = [];
  /** Side files kept under a visible name: a version someone wrote while its path held something newer. */
  const kept: string[] = [];
  try {
    if (codeTree && planned.length > 0) {
      const opts = {
        tag: t.rid,
        expect: (rel: string) => expect.get(rel),
        onChanged: 'stop' as const,
        kept,
        placed,
        ...known,
        ...(attic ? { attic } : {}),
      };
      if (faultArmed('restore:mid-apply')) {
        await shadow.applyPaths(codeTree, planned.slice(0, Math.ceil(planned.length / 2)), opts);
        fault('restore:mid-apply');
      }
      const alongside = stageApplied ? { alongsideSettle: stageApplied } : {};
      changed = await step('apply', () => shadow.applyPaths(codeTree, planned, { ...opts, ...alongside }));
      // An undo puts back the exact bits and the folders the undone restore found (git knows only 644/755).
      const modes = t.undoOf ? await loadModes(ctx.ws.dir, t.undoOf) : null;
      if (modes) await step('reapplyModes', () => reapplyModes(ctx.ws.root, modes, changed, placed));
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
    const why = e instanceof Error ? e.message : String(e);
    const done = await rollBack(ctx, journal, `failed: ${why}`).then(
      () => 'rolled back',
      (r: unknown) =>
        `the rollback could not finish (${r instanceof Error ? r.message : String(r)}); the next retrace command finishes it`,
    );
    const keptNote = kept.length > 0 ? `; also kept: ${kept.join(', ')}` : '';
    if (e instanceof RetraceError) throw new RetraceError(e.code, `${e.message}; ${done}${keptNote}`, { cause: e });
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
  await step('ledger', () => ctx.ledger.append(entry));
  fault('restore:after-ledger');
  shadow.rememberPlaced(placed);
  if (planned.length > 0) attic?.finish(); // a restore that changed no file leaves the attic as it was
  // Not synced: a journal that comes back after a crash names a restore the ledger has, and recovery only drops it.
  await step('clear', () => ctx.journal.clear({ durable: false }));
  fault('restore:after-clear');
  return { safety, changed, skipped };
}

const pathsOf = (t: Transaction): { paths?: string[] } => (t.paths ? { paths: t.paths } : {});

function visibilityEvents(rid: string, c: VisibilityChange, to: string | undefined): (RewindEvent | UnrewindEvent)[] {
  const ts = new Date().toISOString();
  const out: (RewindEvent | UnrewindEvent)[] = [];
  if (c.show.length > 0) out.push({ type: 'unrewind', ts, rid, show: c.show });
  if (c.hide.length > 0) out.push({ type: 'rewind', ts, rid, ...(to ? { to } : {}), hide: c.hide });
  return out;
}

/**
 * The facade of one workspace: the only thing the service, the CLI, the hooks and the importers hold. It owns the
 * pieces (session logs, journal, ledger, recovery log, shadow repository) and the writer lock; the work itself is
 * done by one module per concern, each a plain function of the workspace context (context.ts):
 *
 *   record.ts      the write protocol (commit → journal → log line → ref), for hooks, CLI and importers
 *   read/          naming checkpoints, file contents
 *   restore/       the restore transaction, restore, undo
 *   recovery/      what a killed process left: roll back or finish
 *   status.ts      the figures `retrace status` shows
 *   maintenance.ts background pack/gc and repairs, on a try-lock, never inside a hook call
 *   missed.ts      checkpoints a hook could not record
 *   paths.ts       the one workspace-relative path check
 *
 * Every operation that writes runs under the writer lock (I6) and starts with recovery (I8). Readers (status,
 * log, diffs in any compare mode) never take it (I10): a hook must never wait behind someone looking.
 */
import { RetraceError, toErrorInfo } from '../../shared/errors';
import type {
  FileChange,
  FileContents,
  Message,
  RestoreEntry,
  RestoreResult,
  RestoreTarget,
  RevertResult,
  HunkResult,
  SessionSummary,
  UndoResult,
  WorkspaceStatus,
} from '../../shared/model';
import type { WorkspaceContext } from './context';
import { Journal, RecoveryLog } from './journal';
import { Ledger } from './ledger';
import { assertLockHeld, tryWithLock, withLock } from './lock';
import {
  maintainLocked,
  maybeScheduleMaintenance,
  packDue,
  refreshStorage,
  type MaintenanceOutcome,
} from './maintenance';
import { detectPendingStable } from './recovery/detect';
import { MissedLog } from './missed';
import { checkWorkspacePath } from './paths';
import { fileContents } from './read/contents';
import { diffToWorking } from './read/working';
import { resolveCheckpoint, resolveCommit, unavailable } from './read/resolve';
import { recordLocked, type RecordInput, type RecordResult } from './record';
import { recover } from './recovery/recover';
import { report } from './recovery/report';
import { restoreLocked, type RestoreRequest } from './restore/restore';
import { listRestores } from './restore/history';
import { undoLocked } from './restore/undo';
import { revertLocked, type RevertRequest } from './restore/revert';
import { applyHunkLocked, type HunkRequest } from './restore/hunk';
import { assertSessionId, sessionRef } from './sessions/ids';
import type { MessageEvent, RewindEvent, UnrewindEvent } from './sessions/events';
import type { SessionState } from './sessions/replay';
import { withPulledInfo } from './share/summaries';
import { SessionStore } from './sessions/store';
import { dropKeptShadow, isKept, openShadow } from './residentShadows';
import { noteStep, step } from './stepTrace';
import { refreshWarmBase, scheduleWarmRefresh, type WarmRefreshOutcome } from './warmBase';
import { readStatus } from './status';
// Loaded on first use: recording a plain message never needs git (the hook runs on every tool call).
import type { ShadowRepo } from './shadow';
import type { WorkspaceRef } from './workspace';

export type { RecordInput, RecordResult } from './record';
export type { RestoreRequest } from './restore/restore';
export type { RevertRequest } from './restore/revert';
export type { HunkRequest } from './restore/hunk';
export { INLINE_LIMIT } from './read/contents';
export { checkWorkspacePath } from './paths';

export class WorkspaceEngine implements WorkspaceContext {
  readonly ws: WorkspaceRef;
  readonly sessions: SessionStore;
  readonly journal: Journal;
  readonly ledger: Ledger;
  readonly recoveryLog: RecoveryLog;
  readonly missed: MissedLog;
  private shadowRepo: Promise<ShadowRepo> | null = null;

  /** Who holds the lock, as other writers are told ("retrace checkpoint", "Retrace app"). */
  private readonly actor: string;

  private readonly lockWaitMs: number | undefined;

  /** Set for hooks: a checkpoint record() cannot make is listed as missed, with this call's name (missed.ts). */
  private readonly missedAs: string | undefined;

  constructor(ws: WorkspaceRef, opts: { actor?: string; lockWaitMs?: number; missedAs?: string } = {}) {
    this.ws = ws;
    this.actor = opts.actor ?? 'retrace';
    this.lockWaitMs = opts.lockWaitMs;
    this.missedAs = opts.missedAs;
    this.sessions = new SessionStore(ws.dir);
    this.journal = new Journal(ws.dir);
    this.ledger = new Ledger(ws.dir);
    this.recoveryLog = new RecoveryLog(ws.dir);
    this.missed = new MissedLog(ws.dir);
  }

  /** The shadow repository, opened (and created) on first use. */
  shadow(): Promise<ShadowRepo> {
    if (!this.shadowRepo) {
      const opening = openShadow(this.ws); // kept across engines in the hook server (residentShadows.ts)
      opening.catch(() => (this.shadowRepo = null)); // a failed open is retried by the next call
      this.shadowRepo = opening;
      return opening;
    }
    return this.shadowRepo;
  }

  /** Stop the shadow repository's resident git processes (they also stop by themselves when idle). */
  async closeShadow(): Promise<void> {
    const opening = this.shadowRepo;
    this.shadowRepo = null;
    if (!isKept()) (await opening?.catch(() => null))?.close();
  }

  appendEvents(session: string, events: (MessageEvent | RewindEvent | UnrewindEvent)[]): void {
    assertLockHeld(this.ws); // a writer whose lock was taken over stops before its next log line
    const { repairedTornLine } = this.sessions.append(session, events);
    if (repairedTornLine) {
      this.recoveryLog.add([
        report('log-repaired', `session ${session}: a torn last line (from a killed write) was skipped`),
      ]);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Writing: the lock, then recovery, then the operation.

  /** Run `fn` as the workspace's one writer, after repairing whatever an interrupted operation left. */
  async write<T>(fn: () => Promise<T>, opts: { onWait?: () => void } = {}): Promise<T> {
    const locking = performance.now();
    let done = 0;
    const value = await withLock(
      this.ws,
      async (recovered) => {
        noteStep('lock', locking);
        this.recoveryLog.add(recovered);
        await step('recover', () => recover(this));
        const v = await fn();
        done = performance.now();
        return v;
      },
      {
        command: this.actor,
        ...(this.lockWaitMs !== undefined ? { waitMs: this.lockWaitMs } : {}),
        ...(opts.onWait ? { onWait: opts.onWait } : {}),
      },
    );
    noteStep('unlock', done);
    return value;
  }

  /**
   * Append a message (optionally a checkpoint) — `retrace message`, the hooks, the importers. Now and then a
   * checkpoint schedules maintenance, which runs after this call returned (maintenance.ts).
   */
  async record(input: RecordInput): Promise<RecordResult> {
    let res: RecordResult;
    try {
      res = await this.write(() => recordLocked(this, input));
    } catch (e) {
      if (this.missedAs !== undefined && input.checkpoint) this.markMissed(input.session ?? null, e);
      dropKeptShadow(this.ws); // the next call opens it afresh (residentShadows.ts)
      throw e;
    }
    if (res.hash) {
      maybeScheduleMaintenance(this.ws, () => this.maintenance());
      scheduleWarmRefresh(this.ws, () => this.refreshWarmBase());
    }
    return res;
  }

  /** The warm snapshots' periodic full scan, done between calls without holding the lock for it (warmBase.ts). */
  async refreshWarmBase(): Promise<WarmRefreshOutcome> {
    return refreshWarmBase(this, this.actor);
  }

  /** A hook's checkpoint that could not be made: listed, without the lock it may not have got, then thrown. */
  private markMissed(session: string | null, e: unknown): void {
    const { code, message } = toErrorInfo(e);
    try {
      this.missed.add({ ts: new Date().toISOString(), session, reason: `${code}: ${message}`, tool: this.missedAs });
    } catch {
      // The data folder itself is unwritable: the hook's own log is all that is left.
    }
  }

  /** Snapshot and append a checkpoint message — `retrace checkpoint`. */
  async checkpoint(
    opts: Partial<Pick<RecordInput, 'session' | 'text' | 'role' | 'meta' | 'hintPaths' | 'onProgress'>> = {},
  ): Promise<RecordResult> {
    return this.record({ ...opts, role: opts.role ?? 'system', text: opts.text ?? 'Checkpoint', checkpoint: true });
  }

  /** For callers that already hold the lock (importers recording many messages in one go). */
  async recordLocked(input: RecordInput): Promise<RecordResult> {
    return recordLocked(this, input);
  }

  /** Delete a session (the caller holds the lock): its log and its ref (its checkpoints become unreachable, as I5 allows). */
  async deleteSessionLocked(id: string): Promise<void> {
    assertSessionId(id);
    this.sessions.remove(id);
    const shadow = await this.shadow();
    if (await shadow.readRef(sessionRef(id))) await shadow.deleteRef(sessionRef(id));
  }

  async restore(req: RestoreRequest): Promise<RestoreResult> {
    return this.write(() => restoreLocked(this, req));
  }

  /** Take back one step from the files now, later changes kept (restore/revert.ts); undoable like a restore. */
  async revert(req: RevertRequest): Promise<RevertResult> {
    return this.write(() => revertLocked(this, req));
  }

  /** One hunk of a file's diff restored or taken back in the files now (restore/hunk.ts); undoable. */
  async applyHunk(req: HunkRequest): Promise<HunkResult> {
    return this.write(() => applyHunkLocked(this, req));
  }

  /**
   * Invert ledger entry `rid` (default: the newest): its files back to its safety checkpoint, its messages back.
   * E_UNDO_CONFLICT when a later entry still in effect touched the same files or messages (I14).
   */
  async undo(rid?: string): Promise<UndoResult> {
    return this.write(() => undoLocked(this, rid));
  }

  /** Every restore, revert and undo, newest first, with its undone state (read from the ledger, no lock). */
  async restores(): Promise<RestoreEntry[]> {
    return listRestores(await this.ledger.entries());
  }

  /** A reader: never waits for the writer lock (status.ts). */
  async status(): Promise<WorkspaceStatus> {
    return readStatus(this);
  }

  /** Recovery and the repairs a reader found pending, if the writer lock is free right now. */
  async tryRepair(): Promise<boolean> {
    return (await this.tryWrite(() => maintainLocked(this, { pack: false, repair: true }), this.actor)).ran;
  }

  /** Like write, but only if the lock is free right now: never waits. */
  private tryWrite<T>(fn: () => Promise<T>, command: string): ReturnType<typeof tryWithLock<T>> {
    return tryWithLock(
      this.ws,
      async (recovered) => {
        this.recoveryLog.add(recovered);
        await recover(this);
        return fn();
      },
      { command },
    );
  }

  /**
   * Background upkeep (`retrace maintenance`, scheduled by record): repairs, and a pack with gc when due,
   * on a try-lock. Looks first without the lock: a healthy, packed repository costs one git call.
   */
  async maintenance(opts: { force?: boolean } = {}): Promise<MaintenanceOutcome> {
    const due = await packDue(this).catch(() => 'pack' as const);
    // The read-only checks (objects verified since the last look, refs, logs) before taking the lock.
    const pending = await detectPendingStable(this, await this.sessions.readAll());
    if (due === null && pending.length === 0 && !opts.force) return { ran: false, packed: false };
    const r = await this.tryWrite(
      () => maintainLocked(this, { pack: true, repair: pending.length > 0 }),
      `${this.actor} (maintenance)`,
    );
    if (r.ran) await refreshStorage(this).catch(() => undefined);
    return r.ran ? { ran: true, packed: r.value.packed } : { ran: false, packed: false, holder: r.holder };
  }

  // ---------------------------------------------------------------------------------------------------------
  // Reading.

  async listSessions(): Promise<SessionSummary[]> {
    return withPulledInfo(this.ws.dir, await this.sessions.summaries());
  }

  /** A session's state; without an id, the most recent session (E_UNKNOWN_SESSION when there is none). */
  async session(id?: string): Promise<SessionState> {
    const sid = id ?? this.sessions.mostRecent();
    if (!sid) throw new RetraceError('E_UNKNOWN_SESSION', 'this workspace has no sessions yet');
    assertSessionId(sid);
    const state = await this.sessions.read(sid);
    const lost = await unavailable(this);
    if (lost.size > 0) {
      for (const m of state.messages)
        if (m.hash && lost.has(m.hash)) m.meta = { ...m.meta, checkpointUnavailable: true };
    }
    return state;
  }

  /** A full hash, a unique prefix of 7+ hex digits, or the id of the message that carries it. */
  async resolveCheckpoint(spec: string): Promise<RestoreTarget> {
    return resolveCheckpoint(this, spec);
  }

  /** Like resolveCheckpoint, but any commit of the shadow repository will do (a safety checkpoint, say). */
  async resolveCommit(spec: string): Promise<string> {
    return resolveCommit(this, spec);
  }

  /**
   * Files changed between two commits, or a commit and the files now ('working': a snapshot into a private
   * index, so no writer lock: the renderer asks for several of these while scrubbing, I10).
   */
  async diff(from: string | null, to: string | 'working'): Promise<FileChange[]> {
    if (to === 'working') return diffToWorking(this, from);
    return (await this.shadow()).diff(from, to);
  }

  async fileContents(
    from: string | null,
    to: string | 'working',
    path: string,
    oldPath?: string,
  ): Promise<FileContents> {
    return fileContents(this, from, to, path, oldPath);
  }

  /** A workspace-relative '/'-path, normalised, or E_PATH_OUTSIDE_WORKSPACE (paths.ts). */
  async checkPath(p: string): Promise<string> {
    return checkWorkspacePath(this.ws.root, p);
  }
}

/** Messages as the CLI's `log` shows them. */
export function visibleMessages(s: SessionState, includeHidden: boolean): Message[] {
  return includeHidden ? s.messages : s.messages.filter((m) => !m.hidden);
}

/**
 * The coordinator of one workspace: the only place that combines the shadow repository, the session logs,
 * the journal and the ledger. The service, the CLI, the hooks and the importers all go through it.
 *
 * Every operation that writes runs under the workspace lock (I6) and starts with recovery (I8).
 * Ordering rules that make a kill at any moment recoverable:
 *  - checkpoint: snapshot → commit → journal → append message → update the session ref → clear journal
 *    (a kill before the append leaves an unreferenced commit and no message; after it, recovery moves the ref).
 *  - restore/undo: safety snapshot → safety commit + ref → journal → apply files → visibility event →
 *    ledger entry → clear journal (a kill before the ledger entry is rolled back to the safety checkpoint).
 */
import { lstat, readFile, readlink, realpath } from 'node:fs/promises';
import { join, relative, isAbsolute } from 'node:path';
import { isBinaryFileSync } from 'isbinaryfile';
import { RetraceError } from '../../shared/errors';
import type {
  ChangeCounts,
  CheckpointStats,
  FileChange,
  FileContents,
  Message,
  MessageMeta,
  NotCaptured,
  RecoveryReport,
  RestoreMode,
  RestoreResult,
  RestoreTarget,
  Role,
  SessionSource,
  SessionSummary,
  UndoResult,
  WorkspaceStatus,
} from '../../shared/model';
import { isHardExcluded } from './excludes';
import { fault, faultArmed } from './faults';
import { Journal, RecoveryLog, type RestoreJournal, type VisibilityChange } from './journal';
import { invertVisibility, Ledger, type LedgerRestore } from './ledger';
import { withLock } from './lock';
import { newMessageId, newRestoreId, newSessionId, safetyRef, sessionRef, assertSessionId } from './sessions/ids';
import type { MessageEvent, RewindEvent, SessionOrigin, UnrewindEvent } from './sessions/events';
import type { SessionState } from './sessions/replay';
import { SessionStore, type CreateSessionOptions } from './sessions/store';
// Loaded on first use: recording a plain message never needs git (the hook runs on every tool call).
import type { ShadowRepo, SnapshotProgress } from './shadow';
import type { WorkspaceRef } from './workspace';

export interface RecordInput {
  /** Session to append to; default: the most recent one, created when there is none. Unknown ids are created. */
  session?: string;
  role: Role;
  text: string;
  /**
   * Attach a checkpoint to this message: true = snapshot the workspace now; { tree } = commit a prebuilt tree
   * (importers) as the session's next checkpoint; { hash } = attach an existing commit (kept reachable by the
   * session ref from then on).
   */
  checkpoint?: boolean | { tree: string } | { hash: string };
  /** Importers: the message starts hidden (an abandoned branch). */
  hidden?: boolean;
  meta?: MessageMeta;
  /** For importers: the message's own time. */
  ts?: string;
  /** For a session this call creates. */
  source?: SessionSource;
  title?: string;
  origin?: SessionOrigin;
  /** Paths the caller knows changed (a hook's tool input): lets the snapshot look there first. */
  hintPaths?: string[];
  /** Progress of the snapshot (a first checkpoint of a large folder takes seconds). */
  onProgress?: (p: SnapshotProgress) => void;
}

export interface RecordResult {
  session: string;
  message: string;
  hash: string | null;
  /** Checkpoints only: what changed since the previous checkpoint. */
  changed?: ChangeCounts;
  stats?: CheckpointStats;
  /** Checkpoints only, when non-empty: files the snapshot saw but did not store (too large, unreadable…). */
  notCaptured?: NotCaptured[];
}

export interface RestoreRequest {
  target: string;
  mode: RestoreMode;
  paths?: string[];
  dryRun?: boolean;
}

export interface FileSides {
  path: string;
  before: { bytes: Buffer } | null;
  after: { bytes: Buffer } | null;
}

export class WorkspaceEngine {
  readonly ws: WorkspaceRef;
  readonly sessions: SessionStore;
  readonly journal: Journal;
  readonly ledger: Ledger;
  readonly recoveryLog: RecoveryLog;
  private shadowRepo: Promise<ShadowRepo> | null = null;

  /** Who holds the lock, as other writers are told ("retrace checkpoint", "Retrace app"). */
  private readonly actor: string;

  private readonly lockWaitMs: number | undefined;

  constructor(ws: WorkspaceRef, opts: { actor?: string; lockWaitMs?: number } = {}) {
    this.ws = ws;
    this.actor = opts.actor ?? 'retrace';
    this.lockWaitMs = opts.lockWaitMs;
    this.sessions = new SessionStore(ws.dir);
    this.journal = new Journal(ws.dir);
    this.ledger = new Ledger(ws.dir);
    this.recoveryLog = new RecoveryLog(ws.dir);
  }

  /** The shadow repository, opened (and created) on first use. */
  shadow(): Promise<ShadowRepo> {
    if (!this.shadowRepo) {
      const opening = import('./shadow').then(({ ShadowRepo }) => ShadowRepo.open(this.ws));
      opening.catch(() => (this.shadowRepo = null)); // a failed open is retried by the next call
      this.shadowRepo = opening;
      return opening;
    }
    return this.shadowRepo;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Writing: the lock, then recovery, then the operation.

  /** Run `fn` as the workspace's one writer, after repairing whatever an interrupted operation left. */
  async write<T>(fn: () => Promise<T>, opts: { onWait?: () => void } = {}): Promise<T> {
    return withLock(
      this.ws,
      async (recovered) => {
        this.recoveryLog.add(recovered);
        await this.recover();
        return fn();
      },
      {
        command: this.actor,
        ...(this.lockWaitMs !== undefined ? { waitMs: this.lockWaitMs } : {}),
        ...(opts.onWait ? { onWait: opts.onWait } : {}),
      },
    );
  }

  /** Append a message (optionally a checkpoint) — `retrace message`, the hooks, the importers. */
  async record(input: RecordInput): Promise<RecordResult> {
    return this.write(() => this.recordLocked(input));
  }

  /** Snapshot and append a checkpoint message — `retrace checkpoint`. */
  async checkpoint(
    opts: Partial<Pick<RecordInput, 'session' | 'text' | 'role' | 'meta' | 'hintPaths' | 'onProgress'>> = {},
  ): Promise<RecordResult> {
    return this.record({ ...opts, role: opts.role ?? 'system', text: opts.text ?? 'Checkpoint', checkpoint: true });
  }

  /** For callers that already hold the lock (importers recording many messages in one go). */
  async recordLocked(input: RecordInput): Promise<RecordResult> {
    const session = this.sessionForRecording(input);
    const id = newMessageId();
    const ts = input.ts ?? new Date().toISOString();
    if (!input.checkpoint) {
      const ev: MessageEvent = { type: 'message', id, ts, role: input.role, text: input.text };
      if (input.meta) ev.meta = input.meta;
      if (input.hidden) ev.hidden = true;
      this.appendEvents(session, [ev]);
      return { session, message: id, hash: null };
    }

    const shadow = await this.shadow();
    const ref = sessionRef(session);
    const tip = await shadow.readRef(ref);
    // A session's first checkpoint continues from the workspace's newest one, so "this step" means something.
    const parent = tip ?? (await this.newestCheckpoint());
    let hash: string;
    let notCaptured: NotCaptured[] = [];
    if (input.checkpoint === true) {
      const snap = await shadow.snapshotTree({
        ...(input.hintPaths ? { hintPaths: input.hintPaths } : {}),
        ...(input.onProgress ? { onProgress: input.onProgress } : {}),
      });
      notCaptured = snap.notCaptured;
      fault('checkpoint:after-snapshot');
      hash = await shadow.commit(snap.tree, parent, commitMessage(session, id, input.role, input.text));
    } else if ('tree' in input.checkpoint) {
      hash = await shadow.commit(input.checkpoint.tree, parent, commitMessage(session, id, input.role, input.text));
    } else {
      if (!(await shadow.commitExists(input.checkpoint.hash))) {
        throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no commit ${input.checkpoint.hash} in the shadow repository`);
      }
      hash = input.checkpoint.hash;
    }
    fault('checkpoint:after-commit');
    const { changed, stats } = await shadow.diffStats(parent, hash);
    this.journal.write({ kind: 'checkpoint', ts, session, hash, oldTip: tip });
    fault('checkpoint:after-journal');
    const ev: MessageEvent = { type: 'message', id, ts, role: input.role, text: input.text, hash, stats };
    const meta: MessageMeta = { ...input.meta };
    if (notCaptured.length > 0) meta.notCaptured = notCaptured;
    if (Object.keys(meta).length > 0) ev.meta = meta;
    if (input.hidden) ev.hidden = true;
    this.appendEvents(session, [ev]);
    fault('checkpoint:after-append');
    await shadow.updateRef(ref, hash, tip);
    fault('checkpoint:after-ref');
    this.journal.clear();
    // Hooks may checkpoint thousands of times without anyone running `status`: pack now and then.
    if (Math.random() < MAINTENANCE_CHANCE) await shadow.maintenance().catch(() => {});
    return { session, message: id, hash, changed, stats, ...(notCaptured.length > 0 ? { notCaptured } : {}) };
  }

  private sessionForRecording(input: RecordInput): string {
    if (input.session !== undefined) {
      assertSessionId(input.session);
      if (!this.sessions.exists(input.session)) this.createSession(input.session, input);
      return input.session;
    }
    const recent = this.sessions.mostRecent();
    if (recent) return recent;
    const id = newSessionId();
    this.createSession(id, input);
    return id;
  }

  private createSession(id: string, input: RecordInput): void {
    const opts: CreateSessionOptions = {};
    if (input.origin !== undefined) opts.origin = input.origin;
    if (input.title !== undefined) opts.title = input.title;
    if (input.source !== undefined) opts.source = input.source;
    if (input.ts !== undefined) opts.createdAt = input.ts;
    this.sessions.create(id, opts);
  }

  /** Delete a session: its log and its ref (its checkpoints become unreachable, as I5 allows). */
  async deleteSession(id: string): Promise<void> {
    return this.write(() => this.deleteSessionLocked(id));
  }

  async deleteSessionLocked(id: string): Promise<void> {
    assertSessionId(id);
    this.sessions.remove(id);
    const shadow = await this.shadow();
    if (await shadow.readRef(sessionRef(id))) await shadow.deleteRef(sessionRef(id));
  }

  private appendEvents(session: string, events: (MessageEvent | RewindEvent | UnrewindEvent)[]): void {
    const { repairedTornLine } = this.sessions.append(session, events);
    if (repairedTornLine) {
      this.recoveryLog.add([
        report('log-repaired', `session ${session}: a torn last line (from a killed write) was skipped`),
      ]);
    }
  }

  /** The hash of the newest checkpoint message of any session (by message time), or null. */
  private async newestCheckpoint(): Promise<string | null> {
    // A checkpoint a repair gave up (or whose commit is gone) cannot be a parent: take the newest usable one.
    const lost = await this.unavailable();
    const shadow = await this.shadow();
    let best: { ts: string; hash: string } | null = null;
    for (const s of await this.sessions.readAll()) {
      for (let i = s.messages.length - 1; i >= 0; i--) {
        const m = s.messages[i]!;
        if (!m.hash || lost.has(m.hash)) continue;
        if (best && m.ts <= best.ts) break;
        if (!(await shadow.commitExists(m.hash))) continue;
        best = { ts: m.ts, hash: m.hash };
        break;
      }
    }
    return best?.hash ?? null;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Reading.

  async listSessions(): Promise<SessionSummary[]> {
    return this.sessions.summaries();
  }

  /** A session's state; without an id, the most recent session (E_UNKNOWN_SESSION when there is none). */
  async session(id?: string): Promise<SessionState> {
    const sid = id ?? this.sessions.mostRecent();
    if (!sid) throw new RetraceError('E_UNKNOWN_SESSION', 'this workspace has no sessions yet');
    assertSessionId(sid);
    const state = await this.sessions.read(sid);
    const lost = await this.unavailable();
    if (lost.size > 0) {
      for (const m of state.messages)
        if (m.hash && lost.has(m.hash)) m.meta = { ...m.meta, checkpointUnavailable: true };
    }
    return state;
  }

  /**
   * Checkpoints whose files a repair of the shadow repository could not save (shadow/repair.ts writes
   * <ws.dir>/unavailable.json; read here directly so that reading a log never loads git code).
   */
  async unavailable(): Promise<Set<string>> {
    try {
      const j = JSON.parse(await readFile(join(this.ws.dir, 'unavailable.json'), 'utf8')) as { hashes?: unknown };
      return new Set(Array.isArray(j.hashes) ? j.hashes.filter((h): h is string => typeof h === 'string') : []);
    } catch {
      return new Set();
    }
  }

  /**
   * The commit that holds a checkpoint's files: itself, or — when a repair found its history broken — the
   * salvaged commit with the same tree (which survives gc; the old commit does not).
   */
  private async salvagedAs(hash: string): Promise<string> {
    try {
      const j = JSON.parse(await readFile(join(this.ws.dir, 'unavailable.json'), 'utf8')) as {
        salvaged?: Record<string, unknown>;
      };
      const to = j.salvaged?.[hash];
      return typeof to === 'string' && /^[0-9a-f]{40}$/.test(to) ? to : hash;
    } catch {
      return hash;
    }
  }

  /** E_UNKNOWN_CHECKPOINT for a checkpoint that a repair had to give up. */
  async assertAvailable(hash: string | null): Promise<void> {
    if (hash && (await this.unavailable()).has(hash)) {
      throw new RetraceError(
        'E_UNKNOWN_CHECKPOINT',
        `checkpoint ${hash.slice(0, 7)} is unavailable: the shadow repository lost its files (see retrace status)`,
      );
    }
  }

  /**
   * Resolve a checkpoint name: a full hash, a unique prefix of 7+ hex digits, or the id of the message that
   * carries it. The target's session is the session whose message carries the hash.
   */
  async resolveCheckpoint(spec: string): Promise<RestoreTarget> {
    const states = await this.sessions.readAll();
    if (/^[0-9a-fA-F]+$/.test(spec)) {
      const prefix = spec.toLowerCase();
      if (prefix.length < 7)
        throw new RetraceError('E_UNKNOWN_CHECKPOINT', `checkpoint ${spec}: give at least 7 hex digits`);
      if (prefix.length > 40) throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no checkpoint ${spec}`);
      const carriers = new Map<string, RestoreTarget>();
      for (const s of states) {
        for (const m of s.messages) {
          // The newest carrier wins (an imported copy of a checkpoint, a re-recorded one).
          if (m.hash && m.hash.startsWith(prefix))
            carriers.set(m.hash, { hash: m.hash, message: m.id, session: s.header.id });
        }
      }
      if (carriers.size > 1)
        throw new RetraceError(
          'E_AMBIGUOUS',
          `checkpoint prefix ${spec} names ${carriers.size} checkpoints; give more digits`,
        );
      const only = [...carriers.values()][0];
      if (!only) throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no checkpoint ${spec} in this workspace`);
      await this.assertAvailable(only.hash);
      return { ...only, hash: await this.salvagedAs(only.hash) };
    }
    for (const s of states) {
      const m = s.messages.find((x) => x.id === spec);
      if (!m) continue;
      if (!m.hash) throw new RetraceError('E_UNKNOWN_CHECKPOINT', `message ${spec} carries no checkpoint`);
      await this.assertAvailable(m.hash);
      return { hash: await this.salvagedAs(m.hash), message: m.id, session: s.header.id };
    }
    throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no checkpoint or message ${spec} in this workspace`);
  }

  /** Like resolveCheckpoint, but any commit of the shadow repository will do (a safety checkpoint, say). */
  async resolveCommit(spec: string): Promise<string> {
    try {
      return (await this.resolveCheckpoint(spec)).hash;
    } catch (e) {
      if (!(e instanceof RetraceError) || e.code !== 'E_UNKNOWN_CHECKPOINT' || !/^[0-9a-fA-F]{7,40}$/.test(spec))
        throw e;
      return (await this.shadow()).resolveCommit(spec.toLowerCase());
    }
  }

  /** Files changed between two commits, or a commit and the files now ('working': takes a snapshot). */
  async diff(from: string | null, to: string | 'working'): Promise<FileChange[]> {
    const shadow = await this.shadow();
    if (to === 'working') {
      const tree = await this.write(async () => (await shadow.snapshotTree()).tree);
      return shadow.diff(from, tree);
    }
    return shadow.diff(from, to);
  }

  /**
   * One file on both sides, as UTF-8 text (null where it does not exist). Binary files and sides over
   * INLINE_LIMIT are not inlined. 'working' reads the disk (never through a symlinked folder).
   */
  async fileContents(
    from: string | null,
    to: string | 'working',
    path: string,
    oldPath?: string,
  ): Promise<FileContents> {
    const rel = await this.checkPath(path);
    const relOld = oldPath !== undefined ? await this.checkPath(oldPath) : rel;
    const shadow = await this.shadow();
    const before = from ? await shadow.readFile(from, relOld) : null;
    const after = to === 'working' ? await this.readWorking(rel) : await shadow.readFile(to, rel);
    const sides = [before, after].filter((x): x is { bytes: Buffer } => x !== null);
    const binary = sides.some((x) => isBinaryFileSync(x.bytes, x.bytes.length));
    const tooLarge = sides.some((x) => x.bytes.length > INLINE_LIMIT);
    const text = (x: { bytes: Buffer } | null): string | null =>
      x === null || binary || tooLarge ? null : x.bytes.toString('utf8');
    const out: FileContents = { path: rel, binary, before: text(before), after: text(after) };
    if (tooLarge) out.tooLarge = true;
    return out;
  }

  /**
   * A workspace-relative '/'-path, normalised, or E_PATH_OUTSIDE_WORKSPACE: no absolute paths, no `..`,
   * no backslash tricks, no route out through a symlinked folder.
   */
  async checkPath(p: string): Promise<string> {
    return checkWorkspacePath(this.ws.root, p);
  }

  private async readWorking(rel: string): Promise<{ bytes: Buffer } | null> {
    // Never captured (any .git, node_modules, secrets), so never shown either.
    if (isHardExcluded(rel)) return null;
    const full = join(this.ws.root, rel);
    let st;
    try {
      st = await lstat(full);
    } catch {
      return null;
    }
    if (st.isSymbolicLink()) return { bytes: Buffer.from(await readlink(full, { encoding: 'buffer' })) };
    if (!st.isFile()) return null;
    try {
      return { bytes: await readFile(full) };
    } catch {
      throw new RetraceError('E_UNREADABLE', `cannot read ${rel}`);
    }
  }

  async status(): Promise<WorkspaceStatus> {
    return this.write(async () => {
      await this.repairLaggingRefs();
      const states = await this.sessions.readAll();
      const hashes = new Set<string>();
      for (const s of states) for (const m of s.messages) if (m.hash) hashes.add(m.hash);
      const shadow = await this.shadow();
      this.recoveryLog.add(await shadow.repair());
      await shadow.maintenance();
      return {
        workspace: this.ws.root,
        sessions: states.length,
        checkpoints: hashes.size,
        storageBytes: await shadow.storageBytes(),
        canUndo: (await this.ledger.newestRestore()) !== null,
        lastRestore: await this.ledger.lastRestore(),
        recovered: await this.recoveryLog.recent(),
      };
    });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Restore and undo.

  async restore(req: RestoreRequest): Promise<RestoreResult> {
    return this.write(async () => {
      const paths = req.paths ? await Promise.all(req.paths.map((p) => this.checkPath(p))) : undefined;
      const target = await this.resolveCheckpoint(req.target);
      const rid = newRestoreId();
      const wantsCode = req.mode !== 'conversation';
      const wantsConversation = req.mode !== 'code';
      const conversation = wantsConversation ? await this.rewindTo(target) : null;
      const shadow = await this.shadow();
      const out = await this.transact({
        rid,
        mode: req.mode,
        target,
        codeTree: wantsCode ? await shadow.treeOf(target.hash) : null,
        ...(paths ? { paths } : {}),
        conversation,
        dryRun: req.dryRun === true,
      });
      return {
        restore: rid,
        mode: req.mode,
        target,
        safety: out.safety,
        changed: out.changed,
        hidden: conversation?.hide.length ?? 0,
        dryRun: req.dryRun === true,
        ...(out.skipped.length > 0 ? { skipped: out.skipped } : {}),
      };
    });
  }

  /** Invert the newest ledger entry (restore or undo): its files back to its safety checkpoint, its messages back. */
  async undo(): Promise<UndoResult> {
    return this.write(async () => {
      const entry = await this.ledger.newestRestore();
      if (!entry)
        throw new RetraceError('E_NOTHING_TO_UNDO', 'nothing to undo: no restore has been made in this workspace');
      const rid = newRestoreId();
      const shadow = await this.shadow();
      const codeTree = entry.safety && entry.paths.length > 0 ? await shadow.treeOf(entry.safety) : null;
      const out = await this.transact({
        rid,
        mode: entry.mode,
        target: entry.target,
        codeTree,
        paths: entry.paths,
        conversation: entry.conversation ? invertVisibility(entry.conversation) : null,
        dryRun: false,
        undoOf: entry.rid,
      });
      return { undone: entry.rid, restore: rid, changed: out.changed };
    });
  }

  /** The visibility change that makes `target`'s session end at its message again. */
  private async rewindTo(target: RestoreTarget): Promise<VisibilityChange> {
    const s = await this.sessions.read(target.session);
    const idx = s.messages.findIndex((m) => m.id === target.message);
    if (idx < 0)
      throw new RetraceError('E_UNKNOWN_MESSAGE', `message ${target.message} is not in session ${target.session}`);
    const hide: string[] = [];
    const show: string[] = [];
    s.messages.forEach((m, i) => {
      // An imported abandoned branch (offBranch) was never part of this conversation: it stays hidden (D).
      if (i <= idx && m.hidden && !s.offBranch.has(m.id)) show.push(m.id);
      if (i > idx && !m.hidden) hide.push(m.id);
    });
    return { session: target.session, hide, show };
  }

  /**
   * One restore transaction (a restore or an undo). `codeTree` null: no file part. `paths` limits the file part.
   * A thrown error rolls back what was done; a kill is rolled back by the next command's recovery.
   */
  private async transact(t: {
    rid: string;
    mode: RestoreMode;
    target: RestoreTarget;
    codeTree: string | null;
    paths?: string[];
    conversation: VisibilityChange | null;
    dryRun: boolean;
    undoOf?: string;
  }): Promise<{ safety: string | null; changed: string[]; skipped: { path: string; reason: string }[] }> {
    const shadow = await this.shadow();
    let safety: string | null = null;
    let planned: string[] = [];
    let skipped: { path: string; reason: string }[] = [];
    if (t.codeTree) {
      const snap = await shadow.snapshotTree();
      const plan = await shadow.planRestore(snap.tree, t.codeTree, t.paths);
      planned = plan.steps.map((s) => s.path);
      skipped = plan.skipped;
      if (t.dryRun) return { safety: null, changed: planned, skipped };
      // The safety checkpoint hangs off the target session's chain, and its own ref keeps it alive (I5).
      const parent = await shadow.readRef(sessionRef(t.target.session));
      safety = await shadow.commit(
        snap.tree,
        parent,
        `retrace: safety checkpoint before ${t.undoOf ? `undo of ${t.undoOf}` : `restore ${t.rid}`}`,
      );
      await shadow.updateRef(safetyRef(t.rid), safety);
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
      ...(t.undoOf ? { undoOf: t.undoOf } : {}),
    };
    this.journal.write(journal);
    fault('restore:after-journal');
    let changed: string[] = [];
    try {
      if (t.codeTree && planned.length > 0) {
        if (faultArmed('restore:mid-apply')) {
          await shadow.applyPaths(t.codeTree, planned.slice(0, Math.ceil(planned.length / 2)));
          fault('restore:mid-apply');
        }
        changed = await shadow.applyPaths(t.codeTree, planned);
      }
      fault('restore:after-apply');
      if (conversation)
        this.appendEvents(
          conversation.session,
          visibilityEvents(t.rid, conversation, t.undoOf ? undefined : t.target.message),
        );
      fault('restore:after-rewind');
    } catch (e) {
      // Roll back now; if even that fails, the journal stays and the next command's recovery finishes it.
      await this.rollBack(journal, `failed: ${e instanceof Error ? e.message : String(e)}`).catch(() => {});
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
    this.ledger.append(entry);
    fault('restore:after-ledger');
    this.journal.clear();
    fault('restore:after-clear');
    return { safety, changed, skipped };
  }

  // ---------------------------------------------------------------------------------------------------------
  // Recovery (I8). Runs under the lock at the start of every writing command and of `status`.

  private async recover(): Promise<void> {
    const j = this.journal.read();
    if (!j) return;
    if (j.kind === 'checkpoint') {
      const s = await this.sessions.read(j.session).catch(() => null);
      if (s?.messages.some((m) => m.hash === j.hash)) {
        const shadow = await this.shadow();
        const tip = await shadow.readRef(sessionRef(j.session));
        if (tip !== j.hash) {
          await shadow.updateRef(sessionRef(j.session), j.hash, tip);
          this.recoveryLog.add([
            report(
              'checkpoint-ref-repaired',
              `session ${j.session}: an interrupted checkpoint's ref was moved to ${j.hash.slice(0, 7)}`,
            ),
          ]);
        }
      }
      this.journal.clear();
      return;
    }
    const entries = await this.ledger.entries();
    if (entries.some((e) => e.rid === j.rid)) {
      // The restore finished (or was already rolled back); only the journal's removal was lost.
      this.journal.clear();
      return;
    }
    await this.rollBack(j, 'was interrupted');
  }

  /** Put a restore's files back to its safety checkpoint and cancel its visibility events. Idempotent. */
  private async rollBack(j: RestoreJournal, why: string): Promise<void> {
    let restored: string[] = [];
    if (j.safety && j.paths.length > 0) {
      const shadow = await this.shadow();
      restored = await shadow.applyPaths(await shadow.treeOf(j.safety), j.paths);
    }
    fault('recovery:after-rollback');
    if (j.conversation) {
      const s = await this.sessions.read(j.conversation.session);
      const own = s.visibility.filter((ev) => ev.rid === j.rid);
      if (own.length > 0 && !own.some((ev) => ev.compensates)) {
        const cancel: (RewindEvent | UnrewindEvent)[] = [];
        const ts = new Date().toISOString();
        for (const ev of own.reverse()) {
          if (ev.type === 'rewind') cancel.push({ type: 'unrewind', ts, rid: j.rid, show: ev.hide, compensates: true });
          else cancel.push({ type: 'rewind', ts, rid: j.rid, hide: ev.show, compensates: true });
        }
        this.appendEvents(j.conversation.session, cancel);
      }
    }
    fault('recovery:after-compensate');
    const what = `${j.undoOf ? `undo of ${j.undoOf}` : `restore ${j.rid}`} (${j.mode} to ${j.target.hash.slice(0, 7)}) ${why}; rolled back`;
    const detail = `${what}${j.paths.length ? `: ${restored.length} of ${j.paths.length} file(s) put back` : ''}`;
    this.ledger.append({ type: 'rollback', rid: j.rid, ts: new Date().toISOString(), detail });
    this.recoveryLog.add([report('restore-rolled-back', detail)]);
    this.journal.clear();
  }

  /** A session ref that lags behind its log's last checkpoint (killed between append and update-ref). */
  private async repairLaggingRefs(): Promise<void> {
    const shadow = await this.shadow();
    const refs = new Map((await shadow.listRefs('refs/retrace/sessions/')).map((r) => [r.ref, r.hash]));
    for (const s of await this.sessions.readAll()) {
      const last = [...s.messages].reverse().find((m) => m.hash);
      if (!last?.hash) continue;
      const ref = sessionRef(s.header.id);
      const tip = refs.get(ref) ?? null;
      if (tip === last.hash || !(await shadow.commitExists(last.hash))) continue;
      if (tip !== null && (await shadow.parentOf(last.hash)) !== tip) continue; // not a lag: leave it alone
      await shadow.updateRef(ref, last.hash, tip);
      this.recoveryLog.add([
        report(
          'checkpoint-ref-repaired',
          `session ${s.header.id}: ref moved to its last checkpoint ${last.hash.slice(0, 7)}`,
        ),
      ]);
    }
  }
}

/** One checkpoint in this many (on average) checks whether the shadow repository wants packing. */
const MAINTENANCE_CHANCE = 1 / 50;

/** Sides larger than this are not inlined in diffs (the UI shows a notice). */
export const INLINE_LIMIT = 2 * 1024 * 1024;

export async function checkWorkspacePath(root: string, p: string): Promise<string> {
  const outside = (): RetraceError =>
    new RetraceError('E_PATH_OUTSIDE_WORKSPACE', `path is outside the workspace: ${JSON.stringify(p)}`);
  if (p === '' || p.includes('\0')) throw new RetraceError('E_INVALID_INPUT', `not a file path: ${JSON.stringify(p)}`);
  if (p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p) || isAbsolute(p)) throw outside();
  // A backslash is a separator on Windows: judge the path as if it were one there too.
  const parts = p.split(/[\\/]/).filter((x) => x !== '' && x !== '.');
  if (parts.length === 0) throw new RetraceError('E_INVALID_INPUT', `not a file path: ${JSON.stringify(p)}`);
  if (parts.includes('..')) throw outside();
  const rel = p
    .split('/')
    .filter((x) => x !== '' && x !== '.')
    .join('/');
  // Every existing parent folder must really be inside the root (a symlinked folder could lead out).
  const realRoot = await realpath(root);
  let dir = root;
  const segs = rel.split('/');
  for (let i = 0; i < segs.length - 1; i++) {
    dir = join(dir, segs[i]!);
    let st;
    try {
      st = await lstat(dir);
    } catch {
      break; // does not exist (yet): nothing to follow
    }
    if (st.isSymbolicLink()) {
      const real = await realpath(dir).catch(() => null);
      const r = real === null ? '..' : relative(realRoot, real);
      if (r === '..' || r.startsWith('../') || isAbsolute(r)) throw outside();
    }
  }
  return rel;
}

function visibilityEvents(rid: string, c: VisibilityChange, to: string | undefined): (RewindEvent | UnrewindEvent)[] {
  const ts = new Date().toISOString();
  const out: (RewindEvent | UnrewindEvent)[] = [];
  if (c.show.length > 0) out.push({ type: 'unrewind', ts, rid, show: c.show });
  if (c.hide.length > 0) out.push({ type: 'rewind', ts, rid, ...(to ? { to } : {}), hide: c.hide });
  return out;
}

function report(kind: RecoveryReport['kind'], detail: string): RecoveryReport {
  return { ts: new Date().toISOString(), kind, detail };
}

function commitMessage(session: string, messageId: string, role: Role, text: string): string {
  const first = text.split('\n')[0]!.slice(0, 72);
  return `${role}: ${first || 'Checkpoint'}\n\nRetrace-Session: ${session}\nRetrace-Message: ${messageId}\n`;
}

/** Messages as the CLI's `log` shows them. */
export function visibleMessages(s: SessionState, includeHidden: boolean): Message[] {
  return includeHidden ? s.messages : s.messages.filter((m) => !m.hidden);
}

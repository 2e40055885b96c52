/**
 * The write protocol: how a message, and the checkpoint it may carry, becomes part of a session. Hooks, the
 * CLI and importers all go through `publish`, in one order that a kill at any moment leaves recoverable:
 *
 *   commit(s) (unreferenced) → journal → log line(s) → session ref → clear journal
 *
 * A kill before the log append leaves only unreferenced commits and no message; after it, recovery (or the
 * lag repair of maintenance) moves the ref to the log's last checkpoint. The caller holds the writer lock.
 *
 * Everything before the log line is on disk before the line is. Where one syncfs(2) can say so (Linux,
 * syncFs.ts canSyncFileSystem), a checkpoint writes it all unsynced — the snapshot's objects and index (git's
 * fsyncs off), the commit, the journal — and syncs the file system once right before the line; elsewhere each
 * piece is synced as it is written. The line and the ref are fsynced as always.
 */
import { RetraceError } from '../../shared/errors';
import type { ChangeCounts, CheckpointStats, MessageMeta, NotCaptured, Role, SessionSource } from '../../shared/model';
import type { WorkspaceContext } from './context';
import type { CheckpointJournal } from './journal';
import { fault } from './faults';
import { assertLockHeld } from './lock';
import { unavailable } from './read/resolve';
import { newMessageId, newSessionId, sessionRef, assertSessionId } from './sessions/ids';
import type { MessageEvent, SessionOrigin } from './sessions/events';
import { assertWritable, readPulled } from './sessions/pulled';
import { StagedLog } from './sessions/stagedLog';
import type { CreateSessionOptions } from './sessions/store';
import type { SnapshotProgress } from './shadow';
import { step } from './stepTrace';
import { canSyncFileSystem, syncFileSystemsOf } from './syncFs';

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

/** Append one message (optionally a checkpoint). The caller holds the writer lock. */
export async function recordLocked(ctx: WorkspaceContext, input: RecordInput): Promise<RecordResult> {
  const session = sessionForRecording(ctx, input);
  const id = newMessageId();
  const ts = input.ts ?? new Date().toISOString();
  if (!input.checkpoint) {
    const ev: MessageEvent = { type: 'message', id, ts, role: input.role, text: input.text };
    if (input.meta) ev.meta = input.meta;
    if (input.hidden) ev.hidden = true;
    ctx.appendEvents(session, [ev]);
    return { session, message: id, hash: null };
  }

  const shadow = await step('open', () => ctx.shadow());
  const syncLater = await canSyncFileSystem(ctx.ws.dir);
  const tip = await step('tip', () => shadow.readRef(sessionRef(session)));
  // A session's first checkpoint continues from the workspace's newest one, so "this step" means something.
  const parent = tip ?? (await newestCheckpoint(ctx));
  let hash: string;
  let notCaptured: NotCaptured[] = [];
  const message = commitMessage(session, id, input.role, input.text);
  // A snapshot's objects and its commit, written unsynced: made durable in one round with the journal (publish).
  const unsynced: string[] = [];
  let settle: (() => Promise<void>) | undefined;
  // The full scan's git wrote unsynced (syncLater): one syncfs before the log line, in publish.
  let gitUnsynced = false;
  if (input.checkpoint === true) {
    const snap = await step('snapshot', () =>
      shadow.snapshotTree({
        ...(input.hintPaths ? { hintPaths: input.hintPaths } : {}),
        ...(input.onProgress ? { onProgress: input.onProgress } : {}),
        unsynced,
        syncLater,
        editSmallScans: true,
      }),
    );
    notCaptured = snap.notCaptured;
    gitUnsynced = snap.gitUnsynced === true;
    settle = snap.settle;
    fault('checkpoint:after-snapshot');
    hash = await step('commit', () => shadow.commit(snap.tree, parent, message, { durable: false })).catch(
      async (e: unknown) => {
        await settleAnyway(shadow, unsynced, settle);
        throw e;
      },
    );
    unsynced.push(hash);
  } else if ('tree' in input.checkpoint) {
    hash = await shadow.commit(input.checkpoint.tree, parent, message);
  } else {
    if (!(await shadow.commitExists(input.checkpoint.hash))) {
      throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no commit ${input.checkpoint.hash} in the shadow repository`);
    }
    hash = input.checkpoint.hash;
  }
  try {
    fault('checkpoint:after-commit');
    const { changed, stats } = await step('stats', () => shadow.diffStats(parent, hash));
    const ev: MessageEvent = { type: 'message', id, ts, role: input.role, text: input.text, hash, stats };
    const meta: MessageMeta = { ...input.meta };
    if (notCaptured.length > 0) meta.notCaptured = notCaptured;
    if (Object.keys(meta).length > 0) ev.meta = meta;
    if (input.hidden) ev.hidden = true;
    // Publish runs it once the objects are durable; if publish fails before that, the catch below does.
    const pending = settle;
    const afterDurable = pending
      ? () => {
          settle = undefined;
          return pending();
        }
      : undefined;
    await publish(ctx, session, [ev], { from: tip, to: hash }, { unsynced, afterDurable, syncLater: gitUnsynced });
    // Packing is maintenance.ts's, scheduled by the facade after this call returns: never inside a hook call.
    return { session, message: id, hash, changed, stats, ...(notCaptured.length > 0 ? { notCaptured } : {}) };
  } catch (e) {
    await settleAnyway(shadow, unsynced, settle);
    throw e;
  }
}

/**
 * A checkpoint that failed after its warm snapshot: its tree still becomes the next warm snapshot's base, as when
 * it was recorded at once (the hinted change is in it, and the next hint may name another path) — once its objects
 * are durable. Best effort: the failure itself is what the caller reports.
 */
async function settleAnyway(
  shadow: { syncObjects(ids: string[]): Promise<void> },
  unsynced: string[],
  settle: (() => Promise<void>) | undefined,
): Promise<void> {
  if (!settle) return;
  try {
    await shadow.syncObjects(unsynced);
    await settle();
  } catch {
    // The lock was lost, the disk is full: the next snapshot is then a full one or builds on the older base.
  }
}

/** Unsynced objects a publish makes durable with its journal, and what to run once they are (snapshot.ts settle). */
export interface PublishDurability {
  unsynced?: readonly string[];
  afterDurable?: (() => Promise<void>) | undefined;
  /** Git wrote objects unsynced (a full scan with syncLater): one syncfs before the log line covers everything. */
  syncLater?: boolean;
}

/**
 * Make already-committed checkpoints part of a session: journal, append the log lines (or place a staged log,
 * sessions/stagedLog.ts), move the session ref, clear the journal. `tip.to` null: no checkpoint among the events (the ref stays).
 * `durability`: what the checkpoint wrote unsynced — listed objects, made durable with the journal in one round of
 * fsyncs, or (syncLater: git's own writes, which cannot be listed) everything, with one syncfs before the log line.
 */
export async function publish(
  ctx: WorkspaceContext,
  session: string,
  events: MessageEvent[] | StagedLog,
  tip: { from: string | null; to: string | null },
  durability: PublishDurability = {},
): Promise<void> {
  // The log step: append the lines, or put a log written aside in place whole (a long import).
  const writeLog = () => {
    if (events instanceof StagedLog) {
      assertLockHeld(ctx.ws);
      events.place();
    } else if (events.length > 0) ctx.appendEvents(session, events);
  };
  if (tip.to === null) {
    writeLog();
    return;
  }
  const shadow = await ctx.shadow();
  const journal: CheckpointJournal = {
    kind: 'checkpoint',
    ts: new Date().toISOString(),
    session,
    hash: tip.to,
    oldTip: tip.from,
  };
  const unsynced = durability.unsynced ?? [];
  if (durability.syncLater) {
    // Git wrote the snapshot unsynced: the journal too, then one syncfs makes all of it (and `unsynced`) durable.
    await step('journal', () => ctx.journal.write(journal, { durable: false }));
    await step('sync', () => syncWritten(ctx, shadow.gitDir));
  } else {
    // The objects the log line will name, durable with the journal in one round (journal.ts writeWith).
    await step('journal', () =>
      unsynced.length > 0 ? ctx.journal.writeWith(journal, shadow.objectPaths(unsynced)) : ctx.journal.write(journal),
    );
  }
  if (durability.afterDurable) await durability.afterDurable();
  fault('checkpoint:after-journal');
  await step('append', writeLog);
  fault('checkpoint:after-append');
  await step('ref', () => shadow.updateRef(sessionRef(session), tip.to!, tip.from));
  fault('checkpoint:after-ref');
  await step('unjournal', () => ctx.journal.clear({ durable: false })); // journal.ts says why no sync
}

/** One syncfs of the file system(s) of the shadow repository and the data folder: what the checkpoint wrote. */
async function syncWritten(ctx: WorkspaceContext, gitDir: string): Promise<void> {
  // canSyncFileSystem saw it work: a failure now is the disk's (syncfs reports writeback errors), so nothing
  // may name what was written.
  if (!(await syncFileSystemsOf([gitDir, ctx.ws.dir])))
    throw new RetraceError('E_DATA_DIR', `cannot make the checkpoint durable: syncing ${ctx.ws.dir} failed`);
}

/** The commit message of a checkpoint: its first line for people, trailers that tie it to its message. */
export function commitMessage(session: string, messageId: string, role: Role, text: string, importer?: string): string {
  const first = text.split('\n')[0]!.slice(0, 72);
  const imported = importer ? `Retrace-Import: ${importer}\n` : '';
  return `${role}: ${first || 'Checkpoint'}\n\nRetrace-Session: ${session}\nRetrace-Message: ${messageId}\n${imported}`;
}

function sessionForRecording(ctx: WorkspaceContext, input: RecordInput): string {
  if (input.session !== undefined) {
    assertSessionId(input.session);
    assertWritable(ctx.ws.dir, input.session);
    if (!ctx.sessions.exists(input.session)) createSession(ctx, input.session, input);
    return input.session;
  }
  const recent = ctx.sessions.mostRecent();
  if (recent) return recent;
  const id = newSessionId();
  createSession(ctx, id, input);
  return id;
}

function createSession(ctx: WorkspaceContext, id: string, input: RecordInput): void {
  const opts: CreateSessionOptions = {};
  if (input.origin !== undefined) opts.origin = input.origin;
  if (input.title !== undefined) opts.title = input.title;
  if (input.source !== undefined) opts.source = input.source;
  if (input.ts !== undefined) opts.createdAt = input.ts;
  ctx.sessions.create(id, opts);
}

/** The hash of the newest checkpoint message of any session (by message time), or null. */
async function newestCheckpoint(ctx: WorkspaceContext): Promise<string | null> {
  // A checkpoint a repair gave up (or whose commit is gone) cannot be a parent: take the newest usable one.
  const lost = await unavailable(ctx);
  const shadow = await ctx.shadow();
  let best: { ts: string; hash: string } | null = null;
  // A pulled session's steps happened in someone else's folder: this folder's history continues from its own.
  const pulled = readPulled(ctx.ws.dir);
  for (const s of await ctx.sessions.readAll()) {
    if (Object.prototype.hasOwnProperty.call(pulled, s.header.id)) continue;
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

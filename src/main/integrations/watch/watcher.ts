/**
 * `retrace watch`: a checkpoint into a `watch` session whenever file activity in the folder settles, for
 * agents and editors that have no hooks (Cursor, Aider, a script). @parcel/watcher subscribes natively
 * (inotify / FSEvents / ReadDirectoryChangesW), so nothing runs while nothing changes: no polling, no timer, and
 * no writer lock — it is taken only for the moment of a checkpoint, and when another writer holds it the
 * checkpoint waits for the next quiet period.
 *
 * A settle whose snapshot equals the last one (only ignored files changed, or edits were undone) records
 * nothing. The first checkpoint of a run is preceded by one of the folder as watching began (unless the session's
 * last checkpoint holds just that): the state before the program's first change is a restore point too, and the
 * first step's diff shows that change alone. A run that sees no change records nothing at all. What changed in a
 * burst cut short by Ctrl+C is not checkpointed then (never inside a burst); the next checkpoint of the folder, by
 * any writer, captures it.
 */
import watcher from '@parcel/watcher';
import { stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { MessageMeta, NotCaptured } from '../../../shared/model';
import { newSessionId, sessionRef } from '../../engine/sessions/ids';
import type { WorkspaceRef } from '../../engine/workspace';
import { WorkspaceEngine } from '../../engine/workspaceEngine';
import { Settler } from './settle';
import { dataHomeInside, isIgnoredEvent, watcherIgnores } from './ignores';

export interface WatchOptions {
  ws: WorkspaceRef;
  /** Continue this session (created when missing); default: a new session per run. */
  session?: string;
  quietMs?: number;
  maxWaitMs?: number;
  /** How long a checkpoint waits for another writer before giving way to the next settle. */
  lockWaitMs?: number;
  onCheckpoint?: (c: WatchCheckpoint) => void;
  /** The checkpoint of the folder as watching began, recorded right before the first change's. */
  onBaseline?: (c: WatchCheckpoint) => void;
  /** A settle or the native watcher failed: the changes stay pending, and the next settle tries again. */
  onError?: (e: unknown) => void;
  /** A settle recorded what it found, or found nothing new to record (after a failure: recording works again). */
  onSettled?: () => void;
  /**
   * Watching ended by itself: the folder was deleted, or deleted and made again (the subscription is to the folder
   * that was, and would hear nothing of the new one). Nothing more is recorded; stop() need not be called.
   */
  onEnded?: (e: RetraceError) => void;
}

export interface WatchCheckpoint {
  session: string;
  message: string;
  hash: string;
  paths: string[];
}

export interface Watching {
  session: string;
  checkpoints: () => number;
  stop(): Promise<void>;
}

export const DEFAULT_QUIET_MS = 1_500;
export const DEFAULT_MAX_WAIT_MS = 15_000;

export async function startWatching(opts: WatchOptions): Promise<Watching> {
  const { ws } = opts;
  const engine = new WorkspaceEngine(ws, { actor: 'retrace watch', lockWaitMs: opts.lockWaitMs ?? 1_000 });
  const session = opts.session ?? newSessionId();
  const dataRel = dataHomeInside(ws.root, ws.dataHome);
  const changed = new Set<string>();
  let lastTree: string | null = null;
  /** The folder as watching began, until it is recorded (or found to be the session's last checkpoint already). */
  let base: Base | null = null;
  let count = 0;
  const title = `Watched changes in ${ws.name}`;

  /**
   * The folder as watching began, as a checkpoint before the first change's, unless the session ends on just that.
   * `tip`: the session's last checkpoint now, and its tree. When another process watching into this session
   * recorded since (its own base first), ours would come after its newer checkpoints, an older state out of order.
   */
  const recordBase = async (b: Base, tip: { hash: string; tree: string } | null): Promise<void> => {
    if ((tip?.hash ?? null) !== b.tip || tip?.tree === b.tree) return;
    const res = await engine.recordLocked({
      session,
      role: 'system',
      text: 'Before the first change (watching began)',
      checkpoint: { tree: b.tree },
      ts: b.at, // when the folder was so, not when the change came
      source: 'watch',
      title,
      ...metaOf(b.notCaptured),
    });
    if (res.hash) opts.onBaseline?.({ session: res.session, message: res.message, hash: res.hash, paths: [] });
  };

  /** Snapshot under the lock; a checkpoint only when the captured files differ from the last snapshot. */
  const checkpoint = async (): Promise<'done' | 'retry'> => {
    // Also where no event told of it: a folder made again may even get the old one's inode number, so this alone
    // would not do.
    if ((await folderId(ws.root)) !== watched) {
      end();
      return 'done';
    }
    const paths = [...changed].sort();
    changed.clear();
    try {
      const made = await engine.write(async () => {
        const shadow = await engine.shadow();
        const snap = await shadow.snapshotTree();
        if (snap.tree === lastTree) return null;
        // Recorded already — by another process watching the same folder into the same session (the app and a
        // `retrace serve` with "Record changes" on): each change is one checkpoint, not one per watcher.
        const tipHash = await shadow.readRef(sessionRef(session));
        const tip = tipHash === null ? null : { hash: tipHash, tree: await shadow.treeOf(tipHash) };
        if (tip?.tree === snap.tree) {
          lastTree = snap.tree;
          return null;
        }
        if (base) {
          await recordBase(base, tip);
          base = null;
        }
        const res = await engine.recordLocked({
          session,
          role: 'system',
          text: describe(paths),
          checkpoint: { tree: snap.tree },
          source: 'watch',
          title,
          ...metaOf(snap.notCaptured),
        });
        lastTree = snap.tree;
        return res;
      });
      if (made?.hash) {
        count++;
        opts.onCheckpoint?.({ session: made.session, message: made.message, hash: made.hash, paths });
      }
      opts.onSettled?.();
      return 'done';
    } catch (e) {
      for (const p of paths) changed.add(p);
      if (e instanceof RetraceError && e.code === 'E_LOCKED') return 'retry';
      throw e;
    }
  };

  const settler = new Settler({
    quietMs: opts.quietMs ?? DEFAULT_QUIET_MS,
    maxWaitMs: opts.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
    onSettle: checkpoint,
    ...(opts.onError ? { onError: opts.onError } : {}),
  });

  const watched = await folderId(ws.root);
  // The folder as it is now is the base: the first settle is compared with it, not checkpointed blindly.
  // Best effort: when another writer holds the lock, the first settle checkpoints whatever it finds.
  const startedAt = new Date().toISOString();
  base = await engine
    .write(async () => {
      const shadow = await engine.shadow();
      const { tree, notCaptured } = await shadow.snapshotTree();
      return { tree, notCaptured, at: startedAt, tip: await shadow.readRef(sessionRef(session)) };
    })
    .catch((e: unknown) => {
      if (e instanceof RetraceError && e.code === 'E_LOCKED') return null;
      throw e;
    });
  lastTree = base?.tree ?? null;

  const sub = await subscribe(
    ws.root,
    (err, events) => {
      if (err) {
        opts.onError?.(err);
        return;
      }
      let relevant = false;
      for (const ev of events) {
        if (ev.type === 'delete' && ev.path === ws.root) {
          end();
          return;
        }
        const rel = relative(ws.root, ev.path).split(sep).join('/');
        if (isIgnoredEvent(rel, dataRel)) continue;
        changed.add(rel);
        relevant = true;
      }
      if (relevant) settler.poke();
    },
    watcherIgnores(ws.root, ws.dataHome),
  );

  let halted: Promise<void> | null = null;
  const halt = (): Promise<void> =>
    (halted ??= (async () => {
      await sub.unsubscribe();
      await settler.stop();
      // Its resident git processes stand in the data folder: left to their idle timeout, they kept a folder on a
      // removable disk busy after "Record changes" was switched off.
      await engine.closeShadow();
    })());
  /** The folder watched is gone: what the subscription hears now is nothing, or nothing of the folder there now. */
  function end(): void {
    if (halted) return;
    // Not awaited: it waits for the settle in progress, which may be the caller.
    halt().catch(() => {});
    opts.onEnded?.(
      new RetraceError(
        'E_NOT_FOUND',
        `${ws.root} was deleted or replaced while it was watched; watching stopped (start it again to watch the folder there now)`,
      ),
    );
  }

  return { session, checkpoints: () => count, stop: halt };
}

/** Which folder is at `root` (device and inode), or null when none is; a folder made again there is another. */
async function folderId(root: string): Promise<string | null> {
  const st = await stat(root, { bigint: true }).catch(() => null);
  return st?.isDirectory() ? `${st.dev}:${st.ino}` : null;
}

/** The native subscription; a system that refuses one (inotify watch limit, no backend) is a one-line error. */
async function subscribe(
  root: string,
  cb: watcher.SubscribeCallback,
  ignore: string[],
): Promise<watcher.AsyncSubscription> {
  try {
    return await watcher.subscribe(root, cb, { ignore });
  } catch (e) {
    throw new RetraceError('E_UNSUPPORTED', `cannot watch ${root}: ${(e as Error).message}`);
  }
}

/** A snapshot of the folder as watching began, and when. */
interface Base {
  tree: string;
  notCaptured: NotCaptured[];
  at: string;
  /** The session's last checkpoint then: when another writer has moved it since, the base is older than that. */
  tip: string | null;
}

function metaOf(notCaptured: NotCaptured[]): { meta?: MessageMeta } {
  return notCaptured.length > 0 ? { meta: { notCaptured } } : {};
}

/** The checkpoint's text: which files the burst touched (the first few, then how many more). */
function describe(paths: string[]): string {
  if (paths.length === 0) return 'Files changed';
  const shown = paths.slice(0, 5).join(', ');
  return paths.length > 5 ? `Files changed: ${shown} and ${paths.length - 5} more` : `Files changed: ${shown}`;
}

/**
 * "Record changes" in the app: the `retrace watch` watcher (integrations/watch) run by the service (the Electron
 * main process or `retrace serve`) for each folder that has the switch on, one watcher per folder. Its
 * checkpoints land in the folder's session logs, which the service already follows, so every window sees them.
 */
import { toErrorInfo, type ErrorInfo } from '../../shared/errors';
import type { WorkspaceRef } from '../engine/workspace';
import { startWatching, type Watching } from '../integrations/watch/watcher';

export interface RecorderOptions {
  /** Milliseconds of quiet before a checkpoint (the watcher's default otherwise). */
  quietMs?: number;
  /** A folder's recorder failed, or recorded again after failing (lastError tells which). */
  onStateChange?: (workspace: string) => void;
}

export class ChangeRecorders {
  /** Workspace id → its watcher (a promise while it starts, so a second start waits for the first). */
  private readonly running = new Map<string, Promise<Watching>>();
  /**
   * Workspace id → why its recorder could not start, or why its last settle recorded nothing (a full disk, an
   * unreadable file), until it starts or records again: the window says so, for the watcher only keeps retrying
   * and a folder that resumes recording when opened has nobody to tell.
   */
  private readonly failures = new Map<string, ErrorInfo>();

  /** Stopped for good (the service closed): a start asked later — a settings change heard late — starts nothing. */
  private closed = false;

  constructor(private readonly opts: RecorderOptions = {}) {}

  isOn(workspace: string): boolean {
    return this.running.has(workspace);
  }

  /** Why the recorder could not start or stopped (it is off), or why its last settle failed (it is on). */
  lastError(workspace: string): ErrorInfo | undefined {
    return this.failures.get(workspace);
  }

  /** Start watching `ws` into `session` (continued, created when missing); no-op when it runs already. */
  async start(ws: WorkspaceRef, session: string): Promise<void> {
    if (this.closed) return;
    if (this.running.has(ws.id)) {
      await this.running.get(ws.id);
      return;
    }
    const changed = () => this.opts.onStateChange?.(ws.id);
    const started = startWatching({
      ws,
      session,
      ...(this.opts.quietMs !== undefined ? { quietMs: this.opts.quietMs } : {}),
      onError: (e: unknown) => {
        const now = toErrorInfo(e);
        const was = this.failures.get(ws.id);
        this.failures.set(ws.id, now);
        // Each settle retries: the windows hear of a failure once, not again for every retry that fails alike.
        if (was?.code !== now.code || was.message !== now.message) changed();
      },
      onSettled: () => {
        if (this.failures.delete(ws.id)) changed();
      },
      // The folder was deleted or replaced: off, with why, until switched on again (which watches the folder there).
      onEnded: (e) => {
        if (this.running.get(ws.id) === started) this.running.delete(ws.id);
        this.failures.set(ws.id, toErrorInfo(e));
        changed();
      },
    });
    this.running.set(ws.id, started);
    try {
      await started;
      this.failures.delete(ws.id);
    } catch (e) {
      this.running.delete(ws.id);
      this.failures.set(ws.id, toErrorInfo(e));
      throw e;
    }
  }

  async stop(workspace: string): Promise<void> {
    this.failures.delete(workspace); // off by choice: nothing failed
    const w = this.running.get(workspace);
    if (!w) return;
    this.running.delete(workspace);
    await (await w.catch(() => null))?.stop();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running.keys()].map((id) => this.stop(id)));
  }
}

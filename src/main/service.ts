/**
 * The Retrace service: the contract's handlers (src/shared/contract.ts) on top of the workspace engine.
 * The Electron IPC layer and the `retrace serve` host both call it; nothing else reaches the engine from a UI.
 *
 *   const service = createService({
 *     host: 'electron' | 'serve',
 *     dataHome?: string,                       // default: resolveDataHome() (RETRACE_HOME or the app's folder)
 *     initialWorkspace?: string,               // the folder the window was opened for (init opens it)
 *     pickFolder?: () => Promise<string|null>, // native dialog; absent → E_UNSUPPORTED
 *     recentWorkspaces?: () => Promise<string[]>, // default: <dataHome>/recent.json kept by openWorkspace
 *     watch?: boolean,                         // default true: push RetraceEvents when session logs change
 *     openPath?: (abs) => Promise<string>,     // Electron's shell.openPath; absent → openInEditor E_UNSUPPORTED
 *     env?: NodeJS.ProcessEnv,                 // where agents keep sessions (discover); default process.env
 *     recordQuietMs?: number,                  // "Record changes": quiet before a checkpoint (watcher default)
 *   });
 *   await service.dispatch('timeline', rawArgs)  // → Result<…>: validates with requestSchemas, never throws
 *   service.subscribe((event) => …)              // → unsubscribe
 *   service.handlers.status({ workspace })        // validated-request handlers (throw RetraceError)
 *   await service.close()                         // stops the watchers
 *
 * Requests name a workspace by id; openWorkspace gives the id. Paths in requests are workspace-relative
 * ('/'-separated); absolute paths, `..` and routes out through symlinks are refused (E_PATH_OUTSIDE_WORKSPACE).
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import { basename, join, resolve as resolvePath } from 'node:path';
import {
  API_METHODS,
  requestSchemas,
  type ApiMethod,
  type ApiParsedRequest,
  type ApiResults,
  type FirstView,
  type InitInfo,
  type RetraceHandlers,
} from '../shared/contract';
import { RetraceError } from '../shared/errors';
import type { CheckpointRef, DiffSummary, MoveResult, RetraceEvent, WorkspaceInfo } from '../shared/model';
import { newestSession } from '../shared/newestSession';
import { capture, type Result } from '../shared/result';
import { resolveDataHome } from './engine/dataHome';
import { mkdirPrivate, openPrivateHome, writeFilePrivate } from './engine/privateFs';
import { resolveWorkspace } from './engine/workspace';
import { visibleMessages, WorkspaceEngine } from './engine/workspaceEngine';
import { newSessionId } from './engine/sessions/ids';
import { keepSyncfsHelper } from './engine/syncfsHelper';
import { resolveSide } from './usecases/compare';
import { imageSides } from './usecases/images';
import { openInEditor, type OpenPath } from './usecases/openInEditor';
import { discoverSessions, importDiscovered } from './usecases/discover';
import {
  FOLDER_SETTINGS_FILE,
  publicSettings,
  readFolderSettings,
  writeFolderSettings,
  type StoredFolderSettings,
} from './usecases/folderSettings';
import { ChangeRecorders } from './usecases/recordChanges';
import { withoutDetails } from './usecases/messageDetails';
import { restoreAndFork } from './usecases/restore';
import { collectGarbage, forgetSession, setStorageBudget, storageOf } from './usecases/storage';
import { applyHunk, revertStep } from './usecases/revert';
import { blame } from './usecases/blame';
import { labelCheckpoint, withLabels } from './usecases/label';
import { search } from './usecases/search';
import { movedHistories, moveWorkspace } from './usecases/moveWorkspace';

export interface ServiceOptions {
  host: 'electron' | 'serve';
  dataHome?: string;
  initialWorkspace?: string;
  pickFolder?: () => Promise<string | null>;
  recentWorkspaces?: () => Promise<string[]>;
  watch?: boolean;
  /** The desktop's "open with the default application" (Electron's shell.openPath); absent → E_UNSUPPORTED. */
  openPath?: OpenPath;
  env?: NodeJS.ProcessEnv;
  recordQuietMs?: number;
}

export interface RetraceService {
  handlers: RetraceHandlers;
  dispatch<M extends ApiMethod>(method: M, rawArgs: unknown): Promise<Result<ApiResults[M]>>;
  dispatch(method: string, rawArgs: unknown): Promise<Result<unknown>>;
  subscribe(listener: (event: RetraceEvent) => void): () => void;
  /**
   * Read ahead what a window's first view of the initial folder needs (its session logs, folded), while the
   * window is still loading; nothing else (no watcher, no recording) starts before the window opens the folder.
   */
  prepare(): Promise<void>;
  close(): Promise<void>;
}

const RECENT_MAX = 20;
const WATCH_DEBOUNCE_MS = 150;
/** Diff summaries between two commits never change; keep the most recent ones. */
const DIFF_CACHE_MAX = 500;

export function createService(opts: ServiceOptions): RetraceService {
  keepSyncfsHelper(); // the app and `retrace serve` live long: their syncs go through a resident helper
  return new Service(opts);
}

class Service implements RetraceService {
  readonly handlers: RetraceHandlers;
  private readonly dataHome: string;
  private readonly engines = new Map<string, WorkspaceEngine>();
  /** Engines read ahead by prepare(), taken by the first open() of their folder. */
  private readonly prepared = new Map<string, WorkspaceEngine>();
  private readonly listeners = new Set<(e: RetraceEvent) => void>();
  private readonly watchers = new Map<string, FSWatcher[]>();
  private readonly diffCache = new Map<string, DiffSummary>();
  /** Workspace id → the folder as first given (an agent may have recorded that spelling, not the real path). */
  private readonly givenPaths = new Map<string, string>();
  /** Workspace id → the import of found sessions running there (imports of one folder run one after another). */
  private readonly importing = new Map<string, Promise<unknown>>();
  private readonly recorders: ChangeRecorders;

  constructor(private readonly opts: ServiceOptions) {
    this.dataHome = opts.dataHome ?? resolveDataHome();
    this.recorders = new ChangeRecorders({
      ...(opts.recordQuietMs !== undefined ? { quietMs: opts.recordQuietMs } : {}),
      // Every window shows a recorder that stopped recording, and that it records again (RecordChanges.tsx).
      onStateChange: (workspace) =>
        void this.folderSettings(workspace).then(
          (settings) => this.emit({ type: 'folder-settings', workspace, settings }),
          () => {}, // the folder went away meanwhile: nothing to show
        ),
    });
    this.handlers = this.makeHandlers();
  }

  async dispatch(method: string, rawArgs: unknown): Promise<Result<never>> {
    return capture(async () => {
      if (!(API_METHODS as readonly string[]).includes(method))
        throw new RetraceError('E_USAGE', `unknown method: ${method}`);
      const m = method as ApiMethod;
      const parsed = requestSchemas[m].safeParse(rawArgs ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
        throw new RetraceError('E_INVALID_INPUT', `${method}: ${where}${issue?.message ?? 'invalid request'}`);
      }
      const handler = this.handlers[m] as (req: unknown) => Promise<never>;
      return handler(parsed.data);
    });
  }

  subscribe(listener: (event: RetraceEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async prepare(): Promise<void> {
    if (!this.opts.initialWorkspace) return;
    try {
      const ws = await resolveWorkspace(this.opts.initialWorkspace, { dataHome: this.dataHome });
      if (this.engines.has(ws.id) || this.prepared.has(ws.id)) return;
      const engine = this.newEngine(ws);
      this.prepared.set(ws.id, engine);
      await engine.listSessions();
    } catch {
      // Only a head start: the window's own requests report whatever is wrong.
    }
  }

  async close(): Promise<void> {
    await this.recorders.close();
    for (const list of this.watchers.values()) for (const w of list) w.close();
    this.watchers.clear();
    this.listeners.clear();
    for (const engine of this.engines.values()) await engine.closeShadow();
  }

  private emit(event: RetraceEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // one listener's failure must not stop the others
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------

  private makeHandlers(): RetraceHandlers {
    return {
      init: async ({ firstView }) => {
        const info: InitInfo = { host: this.opts.host, workspace: null, platform: process.platform };
        if (this.opts.initialWorkspace) {
          try {
            info.workspace = await this.open(this.opts.initialWorkspace);
          } catch (e) {
            const err = e instanceof RetraceError ? e : new RetraceError('E_INTERNAL', String(e));
            info.openError = { code: err.code, message: err.message };
          }
        }
        // In the same answer: the window then shows the folder without another round trip. Only a head start: if
        // it fails, the window asks for it and that request reports why.
        if (info.workspace && firstView) {
          const view = await this.firstView({ workspace: info.workspace.id, ...firstView }).catch(() => null);
          if (view) info.firstView = view;
        }
        return info;
      },
      openWorkspace: async ({ path }) => this.open(path),
      pickFolder: async () => {
        if (!this.opts.pickFolder)
          throw new RetraceError('E_UNSUPPORTED', 'this host has no folder dialog; type the folder path instead');
        return this.opts.pickFolder();
      },
      recentWorkspaces: async () => (this.opts.recentWorkspaces ? this.opts.recentWorkspaces() : this.readRecent()),
      listSessions: async ({ workspace }) => (await this.engine(workspace)).listSessions(),
      firstView: async (req) => this.firstView(req),
      timeline: async (req) => this.timeline(req),
      message: async ({ workspace, session, id }) => {
        const s = await (await this.engine(workspace)).session(session);
        const m = s.messages.find((x) => x.id === id);
        if (!m) throw new RetraceError('E_UNKNOWN_MESSAGE', `no message ${id} in session ${session}`);
        return m;
      },
      diffSummary: async ({ workspace, from, to }) => {
        const engine = await this.engine(workspace);
        const key = `${workspace}:${from ?? 'empty'}:${to}`;
        const hit = to !== 'working' ? this.diffCache.get(key) : undefined;
        if (hit) return hit;
        const summary: DiffSummary = {
          from,
          to,
          files: await engine.diff(await resolveSide(engine, from), await resolveSide(engine, to)),
        };
        if (to !== 'working') {
          this.diffCache.set(key, summary);
          if (this.diffCache.size > DIFF_CACHE_MAX) this.diffCache.delete(this.diffCache.keys().next().value!);
        }
        return summary;
      },
      fileContents: async ({ workspace, from, to, path, oldPath }) => {
        const engine = await this.engine(workspace);
        return engine.fileContents(await resolveSide(engine, from), await resolveSide(engine, to), path, oldPath);
      },
      previewRestore: async ({ workspace, target, paths }) =>
        (await this.engine(workspace)).restore({ target, mode: 'code', dryRun: true, ...(paths ? { paths } : {}) }),
      restore: async ({ workspace, target, mode, paths }) => {
        const engine = await this.engine(workspace);
        const { result: res } = await restoreAndFork(engine, { target, mode, ...(paths ? { paths } : {}) });
        this.emit({ type: 'restored', workspace, restore: res.restore });
        if (mode !== 'code') this.emit({ type: 'messages-appended', workspace, session: res.target.session });
        return res;
      },
      undo: async ({ workspace, restore }) => {
        const res = await (await this.engine(workspace)).undo(restore);
        this.emit({ type: 'restored', workspace, restore: res.restore });
        this.emit({ type: 'sessions-changed', workspace });
        return res;
      },
      restores: async ({ workspace }) => (await this.engine(workspace)).restores(),
      status: async ({ workspace }) => (await this.engine(workspace)).status(),
      storage: async ({ workspace }) => storageOf(await this.engine(workspace)),
      gc: async ({ workspace, maxBytes, keepDays }) => {
        const res = await collectGarbage(await this.engine(workspace), {
          ...(maxBytes !== undefined ? { maxBytes } : {}),
          ...(keepDays !== undefined ? { keepDays } : {}),
        });
        if (res.removed.length > 0) this.emit({ type: 'sessions-changed', workspace });
        return res;
      },
      forget: async ({ workspace, session, force }) => {
        const res = await forgetSession(await this.engine(workspace), session, { force });
        this.emit({ type: 'sessions-changed', workspace });
        return res;
      },
      setStorageBudget: async ({ workspace, maxBytes, keepDays }) =>
        setStorageBudget(await this.engine(workspace), { maxBytes, keepDays }),
      revert: async ({ workspace, target, paths, dryRun, merge }) => {
        const res = await revertStep(await this.engine(workspace), {
          target,
          dryRun,
          merge,
          ...(paths ? { paths } : {}),
        });
        if (!dryRun) this.emit({ type: 'restored', workspace, restore: res.restore });
        return res;
      },
      applyHunk: async ({ workspace, ...req }) => {
        const res = await applyHunk(await this.engine(workspace), req);
        this.emit({ type: 'restored', workspace, restore: res.restore });
        return res;
      },
      fileImages: async ({ workspace, from, to, path, oldPath }) =>
        imageSides(await this.engine(workspace), from, to, path, oldPath),
      openInEditor: async ({ workspace, path }) => {
        await openInEditor(await this.engine(workspace), path, this.opts.openPath);
        return null;
      },
      discover: async ({ workspace }) => discoverSessions(this.discoverOptions(await this.engine(workspace))),
      importFound: async ({ workspace, session }) => this.importFound(workspace, session),
      folderSettings: async ({ workspace }) => this.folderSettings(workspace),
      setFolderSettings: async (req) => this.setFolderSettings(req),
      blame: async ({ workspace, path, session }) =>
        blame(await this.engine(workspace), path, session !== undefined ? { session } : {}),
      search: async ({ workspace, ...req }) => search(await this.engine(workspace), req),
      label: async ({ workspace, target, text }) => labelCheckpoint(await this.engine(workspace), target, text),
      movedHistories: async ({ workspace }) => movedHistories((await this.engine(workspace)).ws),
      moveHistory: async ({ workspace, from }) => this.moveHistory(workspace, from),
    };
  }

  // ---------------------------------------------------------------------------------------------------------
  // Found sessions and "Record changes" (issue 13)

  private discoverOptions(engine: WorkspaceEngine) {
    const given = this.givenPaths.get(engine.ws.id);
    return { ws: engine.ws, given: given ? [given] : [], env: this.opts.env ?? process.env };
  }

  /** The same import as `retrace discover --import`, one folder's imports one after another, with progress events. */
  private async importFound(workspace: string, session: string | undefined) {
    const engine = await this.engine(workspace);
    const before = this.importing.get(workspace) ?? Promise.resolve();
    const run = before
      .catch(() => {})
      .then(async () => {
        const results = await importDiscovered({
          ...this.discoverOptions(engine),
          dataHome: this.dataHome,
          ...(session !== undefined ? { only: session } : {}),
          onProgress: (done, total, current) =>
            this.emit({
              type: 'import-progress',
              workspace,
              done,
              total,
              title: current ? current.title || current.id : null,
            }),
        });
        if (session !== undefined && results.length === 0)
          throw new RetraceError('E_UNKNOWN_SESSION', `no agent session ${session} was found for ${engine.ws.root}`);
        if (results.some((r) => r.action === 'imported' || r.action === 'updated'))
          this.emit({ type: 'sessions-changed', workspace });
        return results;
      });
    this.importing.set(workspace, run);
    try {
      return await run;
    } finally {
      if (this.importing.get(workspace) === run) this.importing.delete(workspace);
    }
  }

  /**
   * What is stored, except that "Record changes" says whether the watcher runs now (it may have failed to start),
   * and why it is not recording when its start or its last settle failed.
   */
  private async folderSettings(workspace: string) {
    const engine = await this.engine(workspace);
    const stored = await readFolderSettings(engine.ws.dir);
    const recordError = this.recorders.lastError(workspace);
    return {
      ...publicSettings(stored),
      recordChanges: this.recorders.isOn(workspace),
      ...(recordError ? { recordError } : {}),
    };
  }

  private async setFolderSettings({ workspace, alwaysImport, recordChanges }: ApiParsedRequest<'setFolderSettings'>) {
    const { ws } = await this.engine(workspace);
    const stored = await readFolderSettings(ws.dir);
    const watchSession = stored.watchSession ?? newSessionId();
    // Started before it is saved: a folder that cannot be watched is refused (E_UNSUPPORTED) and stays off.
    if (recordChanges === true) await this.recorders.start(ws, watchSession);
    await writeFolderSettings(ws.dir, {
      ...(alwaysImport !== undefined ? { alwaysImport } : {}),
      ...(recordChanges !== undefined ? { recordChanges } : {}),
      ...(recordChanges === true ? { watchSession } : {}),
    });
    if (recordChanges === false) await this.recorders.stop(workspace);
    const settings = await this.folderSettings(workspace);
    this.emit({ type: 'folder-settings', workspace, settings });
    return settings;
  }

  /**
   * The folder's settings file changed — in another process too (the app and a `retrace serve` on one data home):
   * "Record changes" here follows what is stored, and the windows are told. Two processes recording the same
   * folder record each change once (the watcher records nothing its session's last checkpoint already holds).
   */
  private async followSettings(workspace: string): Promise<void> {
    const { ws } = await this.engine(workspace);
    const stored = await readFolderSettings(ws.dir);
    if (stored.recordChanges && !this.recorders.isOn(workspace)) await this.resumeRecording(ws, stored);
    else if (!stored.recordChanges && this.recorders.isOn(workspace)) await this.recorders.stop(workspace);
    this.emit({ type: 'folder-settings', workspace, settings: await this.folderSettings(workspace) });
  }

  /** A folder whose "Record changes" was left on records again as soon as it is opened (best effort). */
  private async resumeRecording(ws: WorkspaceEngine['ws'], stored: StoredFolderSettings | null = null): Promise<void> {
    stored ??= await readFolderSettings(ws.dir);
    if (!stored.recordChanges) return;
    try {
      await this.recorders.start(ws, stored.watchSession ?? newSessionId());
    } catch {
      // Cannot watch (inotify limit…): the folder still opens; folderSettings reports it off.
    }
  }

  /** One answer for what a window opening the folder shows first (one round trip instead of two). */
  private async firstView({ workspace, includeHidden, limit }: ApiParsedRequest<'firstView'>): Promise<FirstView> {
    const sessions = await (await this.engine(workspace)).listSessions();
    const newest = newestSession(sessions);
    const timeline = newest
      ? await this.timeline({
          workspace,
          session: newest.id,
          includeHidden,
          limit,
          offset: 0,
          anchor: 'latest-checkpoint',
        })
      : null;
    return { sessions, timeline };
  }

  private async timeline(req: ApiParsedRequest<'timeline'>) {
    const engine = await this.engine(req.workspace);
    const s = await engine.session(req.session);
    const list = visibleMessages(s, req.includeHidden);
    const missed = await engine.missed.recent({ session: s.header.id });
    const checkpoints: CheckpointRef[] = [];
    list.forEach((m, index) => {
      if (m.hash) checkpoints.push({ index, messageId: m.id, hash: m.hash });
    });
    const offset = req.anchor ? anchoredOffset(list.length, checkpoints, req.limit) : req.offset;
    return {
      session: s.header.id,
      total: list.length,
      offset,
      messages: await withLabels(engine, list.slice(offset, offset + req.limit).map(withoutDetails)),
      checkpoints,
      ...(missed.length > 0 ? { missed } : {}),
    };
  }

  // ---------------------------------------------------------------------------------------------------------
  // Workspaces: one engine per opened workspace, found again by id after a restart.

  private async open(path: string): Promise<WorkspaceInfo> {
    const ws = await resolveWorkspace(path, { dataHome: this.dataHome });
    if (!this.engines.has(ws.id)) {
      this.engines.set(ws.id, this.prepared.get(ws.id) ?? this.newEngine(ws));
      this.prepared.delete(ws.id);
      if (this.opts.watch !== false) await this.watchWorkspace(ws.id, ws.dir);
      this.givenPaths.set(ws.id, resolvePath(path));
      await this.resumeRecording(ws);
    }
    await this.rememberRecent(ws.root);
    return { id: ws.id, root: ws.root, name: ws.name };
  }

  /** `retrace move FROM` into an open folder: what this process holds of its data folder first let go of. */
  private async moveHistory(workspace: string, from: string): Promise<MoveResult> {
    const { ws } = await this.engine(workspace);
    await this.letGo(workspace);
    try {
      return await moveWorkspace(from, ws.root, { cwd: ws.root, dataHome: this.dataHome });
    } finally {
      // Opened afresh: the history that came along, or, when the move failed, the folder as it was.
      await this.open(ws.root);
      this.emit({ type: 'sessions-changed', workspace });
    }
  }

  /**
   * The data folder itself was moved away: `retrace move` into this folder from a terminal sets it aside and puts
   * the moved history in its place. Follow the one that is there now, once it is (opening makes a data folder
   * where there is none, and one made in between would be in the move's way).
   */
  private async dataFolderMoved(id: string, dir: string): Promise<void> {
    const root = this.engines.get(id)?.ws.root;
    if (!root) return;
    await this.letGo(id);
    for (let i = 0; i < 40 && !existsSync(join(dir, 'workspace.json')); i++)
      await new Promise((r) => setTimeout(r, 50));
    try {
      await this.open(root);
    } catch {
      return; // the folder went away too: the window's next request says so
    }
    this.emit({ type: 'sessions-changed', workspace: id });
  }

  /** Stop following, recording and reading a workspace's data folder (the move sets it aside). */
  private async letGo(id: string): Promise<void> {
    await this.recorders.stop(id);
    for (const w of this.watchers.get(id) ?? []) w.close();
    this.watchers.delete(id);
    await this.engines.get(id)?.closeShadow();
    this.engines.delete(id);
    this.prepared.delete(id);
    for (const key of [...this.diffCache.keys()]) if (key.startsWith(`${id}:`)) this.diffCache.delete(key);
  }

  private newEngine(ws: Awaited<ReturnType<typeof resolveWorkspace>>): WorkspaceEngine {
    return new WorkspaceEngine(ws, { actor: this.opts.host === 'serve' ? 'retrace serve' : 'Retrace app' });
  }

  private async engine(id: string): Promise<WorkspaceEngine> {
    const known = this.engines.get(id);
    if (known) return known;
    // Opened in an earlier run (the page was reloaded, the host restarted): workspace.json names its folder.
    let root: string | undefined;
    try {
      const meta = JSON.parse(await readFile(join(this.dataHome, 'workspaces', id, 'workspace.json'), 'utf8')) as {
        root?: string;
      };
      root = meta.root;
    } catch {
      // unknown id
    }
    if (root) {
      const info = await this.open(root);
      if (info.id === id) return this.engines.get(id)!;
    }
    throw new RetraceError('E_INVALID_INPUT', `no open workspace with id ${id}; open its folder first`);
  }

  private async readRecent(): Promise<string[]> {
    try {
      const list = JSON.parse(await readFile(join(this.dataHome, 'recent.json'), 'utf8')) as unknown;
      return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
    } catch {
      return [];
    }
  }

  private async rememberRecent(root: string): Promise<void> {
    if (this.opts.recentWorkspaces) return; // the host keeps its own list
    const list = [root, ...(await this.readRecent()).filter((r) => r !== root)].slice(0, RECENT_MAX);
    const file = join(this.dataHome, 'recent.json');
    try {
      openPrivateHome(this.dataHome);
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFilePrivate(tmp, JSON.stringify(list, null, 2) + '\n');
      await rename(tmp, file);
    } catch {
      // the recent list is a convenience; never fail opening a folder over it
    }
  }

  /**
   * Follow a workspace's session logs and ledger (written by this process, the CLI or an agent's hooks).
   * Watching holds no lock; changes are coalesced per workspace.
   */
  private async watchWorkspace(id: string, dir: string): Promise<void> {
    const sessionsDir = join(dir, 'sessions');
    await mkdirPrivate(sessionsDir).catch(() => {});
    const pending = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    let restored = false;
    let settingsChanged = false;
    const flush = (): void => {
      timer = undefined;
      if (settingsChanged) {
        settingsChanged = false;
        void this.followSettings(id).catch(() => {});
      }
      const sessions = [...pending];
      pending.clear();
      if (sessions.length > 0) this.emit({ type: 'sessions-changed', workspace: id });
      for (const session of sessions) this.emit({ type: 'messages-appended', workspace: id, session });
      if (restored) {
        restored = false;
        void this.engines
          .get(id)
          ?.ledger.newestRestore()
          .then((e) => e && this.emit({ type: 'restored', workspace: id, restore: e.rid }))
          .catch(() => {});
      }
    };
    const schedule = (): void => {
      timer ??= setTimeout(flush, WATCH_DEBOUNCE_MS);
    };
    const list: FSWatcher[] = [];
    try {
      list.push(
        watch(sessionsDir, (_event, name) => {
          const n = name?.toString();
          if (!n || !n.endsWith('.jsonl')) return;
          pending.add(n.slice(0, -'.jsonl'.length));
          schedule();
        }),
      );
      list.push(
        watch(dir, (_event, name) => {
          const n = name?.toString();
          if (n === basename(dir)) {
            void this.dataFolderMoved(id, dir);
            return;
          }
          if (n === 'ledger.jsonl') restored = true;
          else if (n === FOLDER_SETTINGS_FILE) settingsChanged = true;
          else return;
          schedule();
        }),
      );
    } catch {
      // No watcher (e.g. inotify limit): the UI still works, it just does not follow live.
    }
    for (const w of list) w.on('error', () => w.close());
    this.watchers.set(id, list);
  }
}

/** The start of the page (of `limit` rows) that holds the latest checkpoint, or of the last page. */
function anchoredOffset(total: number, checkpoints: CheckpointRef[], limit: number): number {
  const row = checkpoints.at(-1)?.index ?? total - 1;
  return Math.max(0, Math.floor(row / limit) * limit);
}

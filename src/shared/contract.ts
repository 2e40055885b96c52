/**
 * The one API between the renderer and the main process. The Electron preload, the IPC handlers, the
 * `retrace serve` WebSocket host and the renderer's client are all derived from this file, so they cannot drift.
 *
 * Adding a feature = one entry in `requestSchemas`, one method in `RetraceApi`, one method on the service.
 */
import { z } from 'zod';
import type { Result } from './result';
import type { ApiMethod } from './methods';

export { API_METHODS, EVENT_CHANNEL, ipcChannel, type ApiMethod } from './methods';
import type {
  BlameResult,
  DiffSummary,
  FileContents,
  ImageSides,
  FolderSettings,
  FoundImportResult,
  FoundSessionInfo,
  LabelResult,
  GcResult,
  MovedHistory,
  MoveResult,
  Message,
  RestoreEntry,
  RestoreResult,
  RetraceEvent,
  RevertResult,
  HunkResult,
  SearchResult,
  SessionSummary,
  StorageBudget,
  StorageReport,
  TimelinePage,
  UndoResult,
  WorkspaceInfo,
  WorkspaceStatus,
} from './model';

const workspaceId = z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'not a workspace id');
const restoreId = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'not a restore id');
const sessionId = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'not a session id');
/** A checkpoint: full hash, unique prefix of 7+ hex digits, or a message id. */
const checkpointSpec = z.string().min(1).max(200);
const hashOrNull = z
  .string()
  .regex(/^[0-9a-f]{40}$/)
  .nullable();
const side = z.union([z.string().regex(/^[0-9a-f]{40}$/), z.literal('working')]);
/** Workspace-relative, '/'-separated; rejected by the service if it is absolute or has a `..` segment. */
const relPath = z.string().min(1).max(4096);

export const requestSchemas = {
  /**
   * What the window was opened for, and what the host can do. `firstView`: answer that folder's first view too
   * (as the `firstView` method would), so that a window opening on it needs no other request to show it.
   */
  init: z.object({
    firstView: z
      .object({
        includeHidden: z.boolean().default(false),
        limit: z.number().int().min(1).max(5000).default(500),
      })
      .optional(),
  }),
  openWorkspace: z.object({ path: z.string().min(1).max(4096) }),
  /** Native folder dialog; E_UNSUPPORTED under `retrace serve`. */
  pickFolder: z.object({}),
  recentWorkspaces: z.object({}),
  listSessions: z.object({ workspace: workspaceId }),
  /**
   * What a window shows on opening a folder, in one request: its sessions, and the newest one's timeline page
   * that holds its latest checkpoint (as `timeline` with anchor 'latest-checkpoint' answers it).
   */
  firstView: z.object({
    workspace: workspaceId,
    includeHidden: z.boolean().default(false),
    limit: z.number().int().min(1).max(5000).default(500),
  }),
  timeline: z.object({
    workspace: workspaceId,
    session: sessionId,
    includeHidden: z.boolean().default(false),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(5000).default(500),
    /**
     * 'latest-checkpoint': instead of `offset`, the page (offsets in steps of `limit`) that holds the latest
     * checkpoint, or the last page when there is none — what a window opening a session shows first, in one
     * request. The answer's `offset` says which page it is.
     */
    anchor: z.enum(['latest-checkpoint']).optional(),
  }),
  message: z.object({ workspace: workspaceId, session: sessionId, id: z.string().min(1).max(200) }),
  diffSummary: z.object({ workspace: workspaceId, from: hashOrNull, to: side }),
  fileContents: z.object({
    workspace: workspaceId,
    from: hashOrNull,
    to: side,
    path: relPath,
    oldPath: relPath.optional(),
  }),
  previewRestore: z.object({ workspace: workspaceId, target: checkpointSpec, paths: z.array(relPath).optional() }),
  restore: z.object({
    workspace: workspaceId,
    target: checkpointSpec,
    mode: z.enum(['code', 'conversation', 'both']),
    paths: z.array(relPath).optional(),
  }),
  /** `restore`: the ledger entry to undo (a restore, revert or undo id); absent: the newest. */
  undo: z.object({ workspace: workspaceId, restore: restoreId.optional() }),
  restores: z.object({ workspace: workspaceId }),
  status: z.object({ workspace: workspaceId }),
  /** Storage per session and the budget (issue 14 item 5: the app's Storage dialog). */
  storage: z.object({ workspace: workspaceId }),
  /** `retrace gc`: the saved budget, each given field overriding it for this run. */
  gc: z.object({
    workspace: workspaceId,
    maxBytes: z.number().int().min(0).nullable().optional(),
    keepDays: z.number().int().min(0).nullable().optional(),
  }),
  /** `retrace forget`; `force` removes a labelled session or one being recorded now. */
  forget: z.object({ workspace: workspaceId, session: sessionId, force: z.boolean().default(false) }),
  setStorageBudget: z.object({
    workspace: workspaceId,
    maxBytes: z.number().int().min(0).nullable(),
    keepDays: z.number().int().min(0).nullable(),
  }),
  /** Take back one step (`retrace revert`); dryRun: the preview, with the merged result's diff. */
  revert: z.object({
    workspace: workspaceId,
    target: checkpointSpec,
    paths: z.array(relPath).optional(),
    dryRun: z.boolean().default(false),
    merge: z.boolean().default(false),
  }),
  /** One hunk of the diff from → to of `path` (0-based line ranges), restored or reverted in the files now. */
  applyHunk: z.object({
    workspace: workspaceId,
    from: hashOrNull,
    to: side,
    path: relPath,
    oldPath: relPath.optional(),
    hunk: z.object({
      fromStart: z.number().int().min(0),
      fromCount: z.number().int().min(0),
      toStart: z.number().int().min(0),
      toCount: z.number().int().min(0),
    }),
    action: z.enum(['restore', 'revert']),
  }),
  /** The two sides as pictures (the Image diff); sides that are no PNG/JPEG/GIF/WebP/SVG carry only their size. */
  fileImages: z.object({
    workspace: workspaceId,
    from: hashOrNull,
    to: side,
    path: relPath,
    oldPath: relPath.optional(),
  }),
  /** The desktop's default application opens the file; E_UNSUPPORTED under `retrace serve`. */
  openInEditor: z.object({ workspace: workspaceId, path: relPath }),
  /** The agents' sessions recorded for this folder (`retrace discover`). */
  discover: z.object({ workspace: workspaceId }),
  /** Import one found session (its id, or `agent:id`), or every new and changed one (`retrace discover --import`). */
  importFound: z.object({
    workspace: workspaceId,
    session: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,200}$/, 'not a session id')
      .optional(),
  }),
  folderSettings: z.object({ workspace: workspaceId }),
  /** Change what is given; "Record changes" on starts the folder's watcher, off stops it. */
  setFolderSettings: z.object({
    workspace: workspaceId,
    alwaysImport: z.boolean().optional(),
    recordChanges: z.boolean().optional(),
  }),
  /** Who last changed each line of the file as it is now (`retrace blame`); `session`: along that chain only. */
  blame: z.object({ workspace: workspaceId, path: relPath, session: sessionId.optional() }),
  /** Find messages by text, changed path or label (usecases/search.ts); '' with a filter lists what it keeps. */
  search: z.object({
    workspace: workspaceId,
    query: z.string().max(500),
    session: sessionId.optional(),
    limit: z.number().int().min(1).max(10000).default(100),
    includeHidden: z.boolean().default(true),
    roles: z.array(z.enum(['user', 'assistant', 'tool', 'system'])).optional(),
    changesOnly: z.boolean().optional(),
  }),
  /** `text` null removes the checkpoint's label. */
  label: z.object({ workspace: workspaceId, target: checkpointSpec, text: z.string().max(2000).nullable() }),
  /** Folders that are gone and had sessions: a folder moved or renamed may be one of them (`retrace move`). */
  movedHistories: z.object({ workspace: workspaceId }),
  /** `retrace move FROM` into this folder: `from` must be one that is gone, and this folder must have no sessions. */
  moveHistory: z.object({ workspace: workspaceId, from: z.string().min(1).max(4096) }),
  // `satisfies` on the literal: a method without a schema, or a schema without a method, fails to compile.
} as const satisfies Record<ApiMethod, z.ZodType>;

export type ApiRequest<M extends ApiMethod> = z.input<(typeof requestSchemas)[M]>;
/** The request after validation (defaults filled in). */
export type ApiParsedRequest<M extends ApiMethod> = z.output<(typeof requestSchemas)[M]>;

export interface InitInfo {
  host: 'electron' | 'serve';
  /** The folder this window was opened for, if any. */
  workspace: WorkspaceInfo | null;
  /** Set when the folder given on the command line could not be opened. */
  openError?: { code: string; message: string };
  platform: string;
  /** That folder's first view, when asked for and the host answers it (the Electron host does not: ask firstView). */
  firstView?: FirstView;
}

/** The answer to `firstView`: `timeline` is null when the folder has no sessions yet. */
export interface FirstView {
  sessions: SessionSummary[];
  timeline: TimelinePage | null;
}

export interface ApiResults {
  init: InitInfo;
  openWorkspace: WorkspaceInfo;
  pickFolder: string | null;
  recentWorkspaces: string[];
  listSessions: SessionSummary[];
  firstView: FirstView;
  timeline: TimelinePage;
  message: Message;
  diffSummary: DiffSummary;
  fileContents: FileContents;
  previewRestore: RestoreResult;
  restore: RestoreResult;
  undo: UndoResult;
  restores: RestoreEntry[];
  status: WorkspaceStatus;
  storage: StorageReport;
  gc: GcResult;
  forget: GcResult;
  setStorageBudget: StorageBudget;
  revert: RevertResult;
  applyHunk: HunkResult;
  fileImages: ImageSides;
  openInEditor: null;
  discover: FoundSessionInfo[];
  importFound: FoundImportResult[];
  folderSettings: FolderSettings;
  setFolderSettings: FolderSettings;
  blame: BlameResult;
  search: SearchResult;
  label: LabelResult;
  movedHistories: MovedHistory[];
  moveHistory: MoveResult;
}

/** What the renderer sees (window.retrace in Electron, a WebSocket client under serve). */
export type RetraceApi = {
  [M in ApiMethod]: (req: ApiRequest<M>) => Promise<Result<ApiResults[M]>>;
} & {
  /** Push events from the main process. Returns an unsubscribe function. */
  onEvent(listener: (event: RetraceEvent) => void): () => void;
};

/**
 * What the Electron preload exposes as `window.retrace`: the contract, plus the path of a dropped file or
 * folder (webUtils.getPathForFile; a browser page under `retrace serve` has no way to know it).
 */
export type DesktopBridge = RetraceApi & {
  /** The file-system path behind a dropped File; '' for anything not backed by a file on disk. */
  pathForFile(file: File): string;
};

/** The main-process side: receives validated requests, may throw RetraceError (the host wraps it in a Result). */
export type RetraceHandlers = {
  [M in ApiMethod]: (req: ApiParsedRequest<M>) => Promise<ApiResults[M]>;
};

/**
 * The renderer's one zustand store: its state, the fresh state a newly opened folder starts from, and the
 * helpers every slice (workspace, timeline, selection, restore, events) shares. Everything that belongs to one
 * folder lives here, in the state or its `scope`, so opening another folder leaves nothing of the first.
 */
import { create } from 'zustand';
import type { InitInfo } from '../../../shared/contract';
import type { ErrorInfo } from '../../../shared/errors';
import type {
  CheckpointRef,
  DiffSummary,
  FileContents,
  Hash,
  Message,
  RestoreEntry,
  RestoreResult,
  SessionSummary,
  WorkspaceInfo,
  WorkspaceStatus,
} from '../../../shared/model';
import type { Result } from '../../../shared/result';
import { DiffCache } from './diffCache';

export const PAGE_SIZE = 500;
/** step: previous → this; since: this → the files now; pair: a chosen checkpoint → this one. */
export type CompareMode = 'step' | 'since' | 'pair';

export interface Banner {
  text: string;
  /** The ledger entry (restore or undo) this banner describes: its Undo acts on this id and no other (I14). */
  rid: string;
  /** The entry can be undone (or, for an undo, redone) from the banner. */
  undo: 'undo' | 'redo' | null;
  /** Set when the ledger says the entry was undone, or overtaken, elsewhere (another window, the terminal). */
  note?: string;
  /** Claude Code sessions: the command that continues the forked transcript. */
  resume?: string;
}

/**
 * The open folder's bookkeeping that nothing renders: mutated in place, never through `set`, and replaced as a
 * whole when a folder opens, so answers still arriving for the old folder land in an object nobody reads.
 */
export interface WorkspaceScope {
  /** Timeline pages (PAGE_SIZE rows each) loaded, and being loaded, for the list shown. */
  loadedPages: Set<number>;
  pagesInFlight: Set<number>;
  /** Diff summaries and file contents of this folder. */
  diffs: DiffCache;
  /**
   * The generation of a full reload still waiting for its answer (0: none), and whether new messages arrived
   * meanwhile, or while this window's restore or undo ran: their tail is fetched once the reload has landed and
   * the restore has ended, never judged against the list they replace.
   */
  reloading: number;
  tailPending: boolean;
}

export interface State {
  phase: 'loading' | 'open-folder' | 'workspace';
  host: InitInfo['host'] | null;
  recent: string[];
  workspace: WorkspaceInfo | null;
  status: WorkspaceStatus | null;
  sessions: SessionSummary[];
  sessionId: string | null;
  /**
   * The folder's first view (its newest session's timeline, at its latest checkpoint) is in: what else the
   * window asks for on opening waits for it, so as not to compete with it for the service and the CPU.
   */
  firstViewShown: boolean;

  showHidden: boolean;
  /** Messages of the list (sparse: pages load as the timeline scrolls). */
  total: number;
  messages: (Message | undefined)[];
  checkpoints: CheckpointRef[];
  /** Bumped on every full reload, so late pages of an older list are dropped. */
  timelineGen: number;

  selected: number;
  compare: CompareMode;
  /** For 'pair': the checkpoint (index) compared with the selected one. */
  compareFrom: number;
  diffKey: string | null;
  summary: DiffSummary | null;
  selectedPath: string | null;
  fileKey: string | null;
  file: FileContents | null;
  inline: boolean;
  /** Which way the user last moved, so the prefetch looks further that way. */
  direction: 1 | -1;

  busy: boolean;
  banner: Banner | null;
  /** The ledger, newest first (the Restores panel), and whether that panel is open. */
  restores: RestoreEntry[];
  restoresOpen: boolean;
  preview: RestoreResult | null;
  error: ErrorInfo | null;

  /** Bumped when a key moved the selection: the timeline then moves focus to the selected row. */
  focusRequest: number;
  /** Why the diff (summary or file) could not load; the diff pane says so instead of "Loading…". */
  diffError: ErrorInfo | null;
  /** The session's first checkpoint (nothing before it in the list): how many files its tree holds. */
  baseline: { hash: Hash; files: number } | null;
  /** A restore in progress: what it does and, when known, how many files it writes. */
  restoring: { text: string; files: number | null } | null;

  scope: WorkspaceScope;
}

/** A state with nothing of any folder in it: a new object (and a new scope) on every call. */
export function freshState(): State {
  return {
    phase: 'loading',
    host: null,
    recent: [],
    workspace: null,
    status: null,
    sessions: [],
    sessionId: null,
    firstViewShown: false,
    showHidden: false,
    total: 0,
    messages: [],
    checkpoints: [],
    timelineGen: 0,
    selected: -1,
    compare: 'step',
    compareFrom: 0,
    diffKey: null,
    summary: null,
    selectedPath: null,
    fileKey: null,
    file: null,
    inline: false,
    direction: -1,
    busy: false,
    banner: null,
    restores: [],
    restoresOpen: false,
    preview: null,
    error: null,
    focusRequest: 0,
    diffError: null,
    baseline: null,
    restoring: null,
    scope: {
      loadedPages: new Set(),
      pagesInFlight: new Set(),
      diffs: new DiffCache(),
      reloading: 0,
      tailPending: false,
    },
  };
}

export const useStore = create<State>()(() => freshState());
export const get = useStore.getState;
export const set = useStore.setState;

/** Unwrap a Result, or show its error as the alert and return undefined. */
export function take<T>(r: Result<T>): T | undefined {
  if (r.ok) return r.value;
  set({ error: r.error });
  return undefined;
}

/**
 * For a feature with its own small store beside this one: run `reset` each time a folder opens (a new scope),
 * so nothing it holds of the previous folder survives. Returns the unsubscribe function.
 */
export function onFolderOpened(reset: () => void): () => void {
  return useStore.subscribe((now, before) => {
    if (now.scope !== before.scope) reset();
  });
}

/**
 * The renderer's state (zustand): workspace → sessions → timeline → selected checkpoint → diff → restore.
 * Every call to the main process goes through `api` (bridge.ts); every answer is a Result, and a failed one
 * becomes the alert without changing anything else.
 */
import { create } from 'zustand';
import type { InitInfo } from '../../../shared/contract';
import type { ErrorInfo } from '../../../shared/errors';
import type {
  AppCommand,
  CheckpointRef,
  DiffSide,
  DiffSummary,
  FileContents,
  Hash,
  Message,
  RestoreEntry,
  RestoreMode,
  RestoreResult,
  RetraceEvent,
  SessionSummary,
  WorkspaceInfo,
  WorkspaceStatus,
} from '../../../shared/model';
import type { Result } from '../../../shared/result';
import { api } from '../bridge';
import { markDataReady, markDiffRequested } from '../perf';
import { isConnectionError } from '../wsClient';
import {
  cachedContents,
  cachedSummary,
  contentsKey,
  forgetAll,
  forgetWorking,
  loadContents,
  loadSummary,
  summaryKey,
} from './diffCache';
import { describeFailedRestore, describeRestore, describeUndo, shortHash, staleNote } from './describe';
import { undoLabel } from '../../../shared/undoWords';

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

export interface State {
  phase: 'loading' | 'open-folder' | 'workspace';
  host: InitInfo['host'] | null;
  recent: string[];
  workspace: WorkspaceInfo | null;
  status: WorkspaceStatus | null;
  sessions: SessionSummary[];
  sessionId: string | null;

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
}

const initial: State = {
  phase: 'loading',
  host: null,
  recent: [],
  workspace: null,
  status: null,
  sessions: [],
  sessionId: null,
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
};

export const useStore = create<State>()(() => initial);
const get = useStore.getState;
const set = useStore.setState;

/** Unwrap a Result, or show its error as the alert and return undefined. */
function take<T>(r: Result<T>): T | undefined {
  if (r.ok) return r.value;
  set({ error: r.error });
  return undefined;
}

// ---------------------------------------------------------------- workspace

export async function boot(): Promise<void> {
  const info = take(await api.init({}));
  if (!info) return set({ phase: 'open-folder' });
  set({ host: info.host, ...(info.openError ? { error: info.openError as ErrorInfo } : {}) });
  if (info.workspace) await showWorkspace(info.workspace);
  else await showOpenFolder();
}

async function showOpenFolder(): Promise<void> {
  set({ phase: 'open-folder' });
  const r = await api.recentWorkspaces({});
  if (r.ok) set({ recent: r.value });
}

export async function openFolder(path: string): Promise<void> {
  const info = take(await api.openWorkspace({ path }));
  if (info) await showWorkspace(info);
}

export async function pickFolder(): Promise<void> {
  const path = take(await api.pickFolder({}));
  if (path) await openFolder(path);
}

async function showWorkspace(ws: WorkspaceInfo): Promise<void> {
  forgetAll();
  set({ ...initial, host: get().host, phase: 'workspace', workspace: ws, error: get().error });
  document.title = `${ws.name} — Retrace`;
  await Promise.all([loadSessions(true), refreshStatus(), loadRestores()]);
}

export async function refreshStatus(): Promise<void> {
  const ws = get().workspace;
  if (!ws) return;
  const r = await api.status({ workspace: ws.id });
  if (r.ok) set({ status: r.value });
}

async function loadSessions(pickLatest: boolean): Promise<void> {
  const ws = get().workspace;
  if (!ws) return;
  const sessions = take(await api.listSessions({ workspace: ws.id }));
  if (!sessions) return;
  set({ sessions });
  const current = get().sessionId;
  if ((pickLatest || !current || !sessions.some((s) => s.id === current)) && sessions.length > 0) {
    const latest = [...sessions].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0]!;
    if (latest.id !== current) await selectSession(latest.id);
  }
}

export async function selectSession(id: string): Promise<void> {
  set({ sessionId: id, selected: -1, summary: null, file: null, diffKey: null, fileKey: null, preview: null });
  await reloadTimeline({ follow: true });
}

// ---------------------------------------------------------------- timeline

const loadedPages = new Set<number>();
const pagesInFlight = new Set<number>();

/**
 * Reload the list from scratch, keeping the checkpoint selected when the answer arrives (the user may have
 * moved meanwhile) if it is still listed; `follow`: select the latest checkpoint instead.
 */
export async function reloadTimeline(opts: { follow: boolean }): Promise<void> {
  const { workspace, sessionId, showHidden } = get();
  if (!workspace || !sessionId) return;
  const gen = get().timelineGen + 1;
  loadedPages.clear();
  pagesInFlight.clear();
  set({ timelineGen: gen });
  const page = take(
    await api.timeline({
      workspace: workspace.id,
      session: sessionId,
      includeHidden: showHidden,
      offset: 0,
      limit: PAGE_SIZE,
    }),
  );
  if (!page || get().timelineGen !== gen) return;
  const messages: (Message | undefined)[] = new Array<Message | undefined>(page.total);
  page.messages.forEach((m, i) => (messages[page.offset + i] = m));
  loadedPages.add(0);
  let selected = page.checkpoints.length - 1;
  const keep = get().checkpoints[get().selected]?.hash;
  let kept = -1;
  if (!opts.follow && keep) {
    kept = page.checkpoints.findIndex((c) => c.hash === keep);
    if (kept >= 0) selected = kept;
  }
  set({ total: page.total, messages, checkpoints: page.checkpoints });
  const target = page.checkpoints[selected];
  if (target) void ensureRange(target.index, target.index);
  select(selected, { keepFile: kept >= 0 });
}

/** Load the pages that hold rows start..end (inclusive), if not loaded yet. */
export async function ensureRange(start: number, end: number): Promise<void> {
  const { workspace, sessionId, showHidden, total, timelineGen } = get();
  if (!workspace || !sessionId || total === 0) return;
  const first = Math.floor(Math.max(0, start) / PAGE_SIZE);
  const last = Math.floor(Math.min(total - 1, end) / PAGE_SIZE);
  const wanted: number[] = [];
  for (let p = first; p <= last; p++) if (!loadedPages.has(p) && !pagesInFlight.has(p)) wanted.push(p);
  await Promise.all(
    wanted.map(async (p) => {
      pagesInFlight.add(p);
      const r = await api.timeline({
        workspace: workspace.id,
        session: sessionId,
        includeHidden: showHidden,
        offset: p * PAGE_SIZE,
        limit: PAGE_SIZE,
      });
      pagesInFlight.delete(p);
      if (!r.ok || get().timelineGen !== timelineGen) return;
      loadedPages.add(p);
      const messages = get().messages.slice();
      r.value.messages.forEach((m, i) => (messages[r.value.offset + i] = m));
      set({ messages });
    }),
  );
}

/** New messages were recorded: fetch the tail, and follow if the latest checkpoint was selected. */
async function appendTail(): Promise<void> {
  const { workspace, sessionId, showHidden, total, checkpoints, selected, timelineGen } = get();
  if (!workspace || !sessionId) return;
  const wasAtLatest = selected === checkpoints.length - 1;
  const offset = Math.max(0, total - 1);
  const page = take(
    await api.timeline({
      workspace: workspace.id,
      session: sessionId,
      includeHidden: showHidden,
      offset,
      limit: PAGE_SIZE,
    }),
  );
  if (!page || get().timelineGen !== timelineGen) return;
  if (page.total < total) return reloadTimeline({ follow: false });
  const messages = get().messages.slice();
  messages.length = page.total;
  page.messages.forEach((m, i) => (messages[page.offset + i] = m));
  for (let p = Math.floor(offset / PAGE_SIZE); p <= Math.floor((page.total - 1) / PAGE_SIZE); p++) loadedPages.add(p);
  set({ total: page.total, messages, checkpoints: page.checkpoints });
  if (wasAtLatest && page.checkpoints.length - 1 !== selected) select(page.checkpoints.length - 1);
  // Stats of the last message can change when a checkpoint lands on it; the header counts too.
  void loadSessions(false);
}

export function toggleShowHidden(): void {
  set({ showHidden: !get().showHidden });
  void reloadTimeline({ follow: false });
}

// ---------------------------------------------------------------- selection and diff

export function diffSides(s: State, index: number): { from: Hash | null; to: DiffSide } | null {
  const cp = s.checkpoints[index];
  if (!cp) return null;
  switch (s.compare) {
    case 'step':
      return { from: s.checkpoints[index - 1]?.hash ?? null, to: cp.hash };
    case 'since':
      return { from: cp.hash, to: 'working' };
    case 'pair':
      return { from: s.checkpoints[s.compareFrom]?.hash ?? null, to: cp.hash };
  }
}

/** Select a checkpoint by its place in the list; `keepFile` when it is the same checkpoint as before (a reload). */
export function select(index: number, opts: { keepFile?: boolean } = {}): void {
  const s = get();
  if (s.checkpoints.length === 0) return set({ selected: -1, summary: null, file: null, diffKey: null, fileKey: null });
  const i = Math.max(0, Math.min(s.checkpoints.length - 1, index));
  set({ selected: i, preview: null });
  void refreshDiff({ keepFile: opts.keepFile ?? false });
}

/** `focus`: a key moved it, so focus follows to the selected timeline row (even at either end of the list). */
export function move(delta: number, opts: { focus?: boolean } = {}): void {
  const { selected, checkpoints } = get();
  if (checkpoints.length === 0) return;
  const next = Math.max(0, Math.min(checkpoints.length - 1, selected + delta));
  if (opts.focus) set({ focusRequest: get().focusRequest + 1 });
  if (next === selected) return;
  direction = delta > 0 ? 1 : -1;
  markDiffRequested();
  select(next);
}

export function setCompare(mode: CompareMode): void {
  if (get().compare === mode) return;
  set({ compare: mode });
  void refreshDiff({ keepFile: true });
}

/**
 * Load the selected checkpoint's diff. A new checkpoint shows its first file (UI.md); the same checkpoint
 * seen another way (compare mode, files changed on disk) keeps the file the user was reading, if still listed.
 */
export function setCompareFrom(index: number): void {
  set({ compareFrom: index });
  if (get().compare === 'pair') void refreshDiff({ keepFile: true });
}

async function refreshDiff(opts: { keepFile: boolean }): Promise<void> {
  const s = get();
  const ws = s.workspace;
  const sides = diffSides(s, s.selected);
  if (!ws || !sides) return;
  const key = summaryKey(ws.id, sides.from, sides.to);
  set({ diffKey: key, diffError: null });
  let summary = cachedSummary(ws.id, sides.from, sides.to);
  if (!summary) {
    set({ summary: null });
    const r = await loadSummary(ws.id, sides.from, sides.to);
    if (get().diffKey !== key) return;
    if (!r.ok) set({ diffError: r.error });
    summary = take(r);
    if (!summary) return;
  }
  if (sides.from === null && s.compare === 'step') noteBaseline(sides.to, summary);
  const previous = opts.keepFile ? get().selectedPath : null;
  const path = summary.files.some((f) => f.path === previous) ? previous : (summary.files[0]?.path ?? null);
  set({ summary, selectedPath: path });
  await showFile(path);
  prefetchNeighbours();
}

export async function selectFile(path: string): Promise<void> {
  set({ selectedPath: path });
  await showFile(path);
}

async function showFile(path: string | null): Promise<void> {
  const s = get();
  const ws = s.workspace;
  const sides = diffSides(s, s.selected);
  if (!ws || !sides || !path) {
    set({ file: null, fileKey: null });
    return markDataReady();
  }
  const key = contentsKey(ws.id, sides.from, sides.to, path);
  const cached = cachedContents(ws.id, sides.from, sides.to, path);
  if (cached) {
    set({ file: cached, fileKey: key });
    return markDataReady();
  }
  const change = s.summary?.files.find((f) => f.path === path);
  if (change?.binary) {
    // The summary already knows: no contents to fetch, the diff pane shows its notice.
    set({ fileKey: key, file: { path, binary: true, before: null, after: null } });
    return markDataReady();
  }
  set({ fileKey: key, file: null, diffError: null });
  const r = await loadContents(ws.id, sides.from, sides.to, path, change?.oldPath);
  if (get().fileKey !== key) return;
  if (!r.ok) set({ diffError: r.error });
  const file = take(r);
  if (file) {
    set({ file });
    markDataReady();
  }
}

/** Which way the user last moved, so the prefetch looks further that way. */
let direction: 1 | -1 = -1;

/**
 * Warm the caches for the checkpoints ahead (three in the direction of travel, one behind), so the next
 * keypress renders from memory. The host runs git one call at a time, so the nearest goes first.
 */
function prefetchNeighbours(): void {
  const s = get();
  const ws = s.workspace;
  if (!ws) return;
  for (const i of [
    s.selected + direction,
    s.selected - direction,
    s.selected + 2 * direction,
    s.selected + 3 * direction,
  ]) {
    const sides = diffSides(s, i);
    if (!sides) continue;
    void loadSummary(ws.id, sides.from, sides.to).then((r) => {
      const first = r.ok ? r.value.files[0] : undefined;
      if (first && !first.binary) void loadContents(ws.id, sides.from, sides.to, first.path, first.oldPath);
    });
  }
}

/** The first checkpoint's tree size, from its "nothing → this" summary (the row says "Baseline: N files"). */
function noteBaseline(hash: Hash, summary: DiffSummary): void {
  if (get().baseline?.hash !== hash) set({ baseline: { hash, files: summary.files.length } });
}

/** Asked by the first checkpoint's timeline row when it shows; shares the diff cache with a selection. */
export async function ensureBaseline(): Promise<void> {
  const { workspace, checkpoints, baseline } = get();
  const first = checkpoints[0];
  if (!workspace || !first || baseline?.hash === first.hash) return;
  const r = await loadSummary(workspace.id, null, first.hash);
  if (r.ok && get().checkpoints[0]?.hash === first.hash) noteBaseline(first.hash, r.value);
}

export function toggleInline(): void {
  set({ inline: !get().inline });
}

// ---------------------------------------------------------------- restore

/**
 * Restore the selected checkpoint (or `target`, e.g. the step's "before" side for a file the step deleted).
 * While it runs, `restoring` says so; a failure says whether the engine rolled it back.
 */
export async function restore(mode: RestoreMode, paths?: string[], opts: { target?: Hash } = {}): Promise<void> {
  const s = get();
  const cp = s.checkpoints[s.selected];
  if (!s.workspace || !cp || s.busy) return;
  const target = opts.target ?? cp.hash;
  const started = new Date().toISOString();
  set({ busy: true, preview: null, restoring: describeRestoring(mode, target, paths, s) });
  try {
    const r = await api.restore({ workspace: s.workspace.id, target, mode, ...(paths ? { paths } : {}) });
    if (!r.ok) return await failedRestore(r.error, started);
    const result = r.value;
    const banner: Banner = { text: describeRestore(result, paths), rid: result.restore, undo: 'undo' };
    if (result.resume) banner.resume = result.resume.command;
    set({ banner, error: null });
    void loadRestores();
    await afterRestore(mode !== 'code');
  } finally {
    set({ busy: false, restoring: null });
  }
}

function describeRestoring(mode: RestoreMode, target: Hash, paths: string[] | undefined, s: State) {
  // The file count is known without asking the engine when the user named the files, or when "Since then"
  // already lists what differs from the files now.
  const files = paths
    ? paths.length
    : s.compare === 'since' && mode !== 'conversation'
      ? (s.summary?.files.length ?? null)
      : null;
  const what = mode === 'conversation' ? 'the conversation' : mode === 'both' ? 'code and conversation' : 'code';
  return { text: `Restoring ${what} to ${shortHash(target)}…`, files };
}

/** Show a failed restore with its code, and say so when the engine put everything back (its recovery log). */
async function failedRestore(error: ErrorInfo, started: string): Promise<void> {
  const ws = get().workspace;
  const status = ws ? await api.status({ workspace: ws.id }) : null;
  if (status?.ok) set({ status: status.value });
  set({ error: describeFailedRestore(error, status?.ok ? status.value.recovered : [], started) });
}

export async function previewRestore(): Promise<void> {
  const s = get();
  const cp = s.checkpoints[s.selected];
  if (!s.workspace || !cp || s.busy) return;
  const result = take(await api.previewRestore({ workspace: s.workspace.id, target: cp.hash }));
  if (result) set({ preview: result });
}

/**
 * Undo ledger entry `rid` (the banner's, or a row of the Restores panel); without one, the newest. The banner then
 * describes the undo, bound to the undo's own id, so its button redoes exactly this.
 */
export async function undoRestore(rid?: string): Promise<void> {
  const s = get();
  if (!s.workspace || s.busy) return;
  set({ busy: true, preview: null });
  try {
    const result = take(await api.undo({ workspace: s.workspace.id, ...(rid ? { restore: rid } : {}) }));
    if (!result) return;
    const list = await loadRestores();
    const undone = list.find((e) => e.restore === result.undone);
    const made = list.find((e) => e.restore === result.restore);
    set({
      banner: {
        text: describeUndo(result, undone),
        rid: result.restore,
        undo: made ? bannerAction(made) : 'redo',
      },
      error: null,
    });
    await afterRestore(true);
  } finally {
    set({ busy: false });
  }
}

/** Read the ledger again (it is the one truth for every window) and bring the banner up to date with it. */
export async function loadRestores(): Promise<RestoreEntry[]> {
  const ws = get().workspace;
  if (!ws) return [];
  const r = await api.restores({ workspace: ws.id });
  if (!r.ok || get().workspace?.id !== ws.id) return get().restores;
  const banner = get().banner;
  const entry = banner && r.value.find((e) => e.restore === banner.rid);
  if (banner && entry) {
    const note = staleNote(entry, r.value);
    set({
      restores: r.value,
      banner: { ...withoutNote(banner), undo: bannerAction(entry), ...(note ? { note } : {}) },
    });
  } else set({ restores: r.value });
  return r.value;
}

function withoutNote(b: Banner): Banner {
  const { note: _note, ...rest } = b;
  return rest;
}

/** What the banner's button does for its entry now: undo, redo (an undo entry), or nothing (undone elsewhere). */
function bannerAction(e: RestoreEntry): Banner['undo'] {
  if (e.undone) return null;
  return undoLabel(e) === 'Undo' ? 'undo' : 'redo';
}

export function toggleRestores(): void {
  const open = !get().restoresOpen;
  set({ restoresOpen: open });
  if (open) void loadRestores();
}

export const closeRestores = () => set({ restoresOpen: false });

async function afterRestore(conversationChanged: boolean): Promise<void> {
  forgetWorking();
  const jobs: Promise<void>[] = [refreshStatus()];
  if (conversationChanged) jobs.push(reloadTimeline({ follow: false }), loadSessions(false));
  else if (get().compare === 'since') jobs.push(refreshDiff({ keepFile: true }));
  await Promise.all(jobs);
}

/** Back after the connection dropped (e.g. `retrace serve` restarted): reopen the folder and reload what shows it. */
export async function resync(): Promise<void> {
  if (get().error && isConnectionError(get().error!)) set({ error: null });
  const ws = get().workspace;
  if (!ws) return void boot();
  const reopened = await api.openWorkspace({ path: ws.root });
  if (!reopened.ok) return set({ error: reopened.error });
  forgetWorking();
  await Promise.all([reloadTimeline({ follow: false }), loadSessions(false), refreshStatus()]);
}

export const dismissBanner = () => set({ banner: null });
export const dismissError = () => set({ error: null });
export const closePreview = () => set({ preview: null });

// ---------------------------------------------------------------- live events and menu commands

/** The files on disk may have changed (an event, or the user coming back to the window): reload what shows them. */
export function refreshWorking(): void {
  if (!get().workspace) return;
  forgetWorking();
  if (get().compare === 'since') void refreshDiff({ keepFile: true });
  void refreshStatus();
}

export function handleEvent(e: RetraceEvent): void {
  if (e.type === 'command') return runCommand(e.command);
  const s = get();
  if (!s.workspace || e.workspace !== s.workspace.id) return;
  switch (e.type) {
    case 'messages-appended':
      if (e.session === s.sessionId) void appendTail();
      else void loadSessions(false);
      break;
    case 'sessions-changed':
      void loadSessions(s.sessionId === null);
      break;
    case 'files-changed':
      refreshWorking();
      break;
    case 'restored':
      // A restore or undo by any window or the CLI: the ledger (banner, Restores panel), the list and the files.
      void loadRestores();
      if (!s.busy) void afterRestore(true);
      break;
  }
}

export function runCommand(command: AppCommand): void {
  switch (command) {
    case 'previous-checkpoint':
      return move(-1);
    case 'next-checkpoint':
      return move(1);
    case 'compare-step':
      return setCompare('step');
    case 'compare-since':
      return setCompare('since');
    case 'compare-pair':
      return setCompare('pair');
    case 'toggle-inline':
      return toggleInline();
    case 'toggle-rewound':
      return toggleShowHidden();
    case 'restore-code':
      return void restore('code');
    case 'restore-conversation':
      return void restore('conversation');
    case 'restore-both':
      return void restore('both');
    case 'preview-restore':
      return void previewRestore();
    case 'undo-restore':
      // The banner's restore, never a newer one made elsewhere; without a banner, the newest.
      return void undoRestore(get().banner?.rid);
  }
}

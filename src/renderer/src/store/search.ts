/**
 * Search, filters and labels in the timeline (issue 12 "Find anything"), in a store of their own beside the
 * main one (store/index.ts), which they read and drive only through its exported actions.
 *
 * - The search box and the "Prompts only" / "Changes only" filters narrow the timeline to the rows the engine
 *   finds (the `search` method with this session, `index` = the row in the timeline's list); `rows` is that list,
 *   null when nothing narrows it.
 * - "Next match" / "Previous match" move through those rows (with "All sessions": through every session's hits,
 *   opening another session where the next hit is); the selection goes to the row's checkpoint, or to the
 *   checkpoint the files were at when that message was written.
 * - Labels: the "Label" action of a checkpoint row edits its label inline.
 */
import { create } from 'zustand';
import type { ErrorInfo } from '../../../shared/errors';
import type { Hash, SearchHit } from '../../../shared/model';
import type { Result } from '../../../shared/result';
import { api } from '../bridge';
import { reloadTimeline, select, selectSession, useStore } from './index';
import { checkpointForRow, nextHit, nextRow } from './searchMoves';

/** Enough for the longest timeline (10,000 rows) in one answer. */
const ROW_LIMIT = 10_000;
/** Hits of other sessions listed under the box with "All sessions". */
const ALL_SESSIONS_LIMIT = 500;
const TYPING_PAUSE_MS = 150;

export interface SearchState {
  query: string;
  allSessions: boolean;
  promptsOnly: boolean;
  changesOnly: boolean;
  /** Rows of the current session's list that the timeline shows (ascending); null: every row. */
  rows: number[] | null;
  /** With "All sessions" and a query: every session's hits, newest session first. */
  hits: SearchHit[];
  /** Hits in all (more than `hits` holds when the limit cut them). */
  total: number;
  /** The row the last match move went to (highlighted, kept in view). */
  currentRow: number | null;
  /** The checkpoint message whose label is being edited. */
  editingLabel: string | null;
  /** Bumped when `/` asks for the search box. */
  focusRequest: number;
}

const initial: SearchState = {
  query: '',
  allSessions: false,
  promptsOnly: false,
  changesOnly: false,
  rows: null,
  hits: [],
  total: 0,
  currentRow: null,
  editingLabel: null,
  focusRequest: 0,
};

export const useSearch = create<SearchState>()(() => initial);
const get = useSearch.getState;
const set = useSearch.setState;
const main = useStore.getState;

function take<T>(r: Result<T>): T | undefined {
  if (r.ok) return r.value;
  useStore.setState({ error: r.error as ErrorInfo });
  return undefined;
}

/** Whether anything narrows the timeline. */
export function narrowing(s: SearchState = get()): boolean {
  return s.query.trim() !== '' || s.promptsOnly || s.changesOnly;
}

// ---------------------------------------------------------------- running the search

let generation = 0;
let typingTimer: ReturnType<typeof setTimeout> | undefined;

export function setQuery(query: string): void {
  set({ query, currentRow: null });
  clearTimeout(typingTimer);
  typingTimer = setTimeout(() => void runSearch(), TYPING_PAUSE_MS);
}

export function clearSearch(): void {
  clearTimeout(typingTimer);
  set({ query: '', currentRow: null });
  void runSearch();
}

export function toggleAllSessions(): void {
  set({ allSessions: !get().allSessions });
  void runSearch();
}

export function togglePromptsOnly(): void {
  set({ promptsOnly: !get().promptsOnly });
  void runSearch();
}

export function toggleChangesOnly(): void {
  set({ changesOnly: !get().changesOnly });
  void runSearch();
}

/** Ask the engine again for what the box and the filters keep (after any change to them or to the list). */
export async function runSearch(): Promise<void> {
  clearTimeout(typingTimer);
  const gen = ++generation;
  const s = get();
  const { workspace, sessionId, showHidden } = main();
  if (!workspace || !sessionId || !narrowing(s)) {
    set({ rows: null, hits: [], total: 0 });
    return;
  }
  const query = s.query.trim();
  const filters = {
    includeHidden: showHidden,
    ...(s.promptsOnly ? { roles: ['user' as const] } : {}),
    ...(s.changesOnly ? { changesOnly: true } : {}),
  };
  const [here, everywhere] = await Promise.all([
    api.search({ workspace: workspace.id, session: sessionId, query, limit: ROW_LIMIT, ...filters }),
    s.allSessions && query !== ''
      ? api.search({ workspace: workspace.id, query, limit: ALL_SESSIONS_LIMIT, ...filters })
      : null,
  ]);
  if (gen !== generation) return;
  const found = take(here);
  const all = everywhere ? take(everywhere) : undefined;
  if (!found) return;
  const rows = found.hits.map((h) => h.index ?? -1).filter((i) => i >= 0);
  set({ rows, hits: all?.hits ?? [], total: all?.total ?? found.total });
}

// The list changed under the search (another session, "Show rewound", new messages, a restore): ask again.
useStore.subscribe((now, before) => {
  if (now.sessionId !== before.sessionId) set({ currentRow: null, editingLabel: null });
  // The selection moved some other way (keys, a click, the slider): the next match counts from there.
  else if (now.selected !== before.selected && now.selected !== selectedByMatch) set({ currentRow: null });
  if (now.workspace?.id !== before.workspace?.id) set({ ...initial });
  const changed =
    now.sessionId !== before.sessionId || now.showHidden !== before.showHidden || now.total !== before.total;
  if (changed && narrowing()) void runSearch();
  if (now.sessionId !== before.sessionId || now.showHidden !== before.showHidden) promptRows = null;
});

// ---------------------------------------------------------------- moving between matches and prompts

/** The row the selection stands on: the last match moved to, else the selected checkpoint's row. */
function currentRow(): number {
  const row = get().currentRow;
  if (row !== null) return row;
  const { checkpoints, selected } = main();
  return checkpoints[selected]?.index ?? -1;
}

/**
 * Show row `row`: highlight it, and select its checkpoint — the one it carries, else the newest before it (the
 * files as that message saw them), else the first.
 */
export function goToRow(row: number): void {
  set({ currentRow: row });
  const { checkpoints } = main();
  if (checkpoints.length === 0) return;
  selectedByMatch = checkpointForRow(checkpoints, row);
  select(selectedByMatch);
}

/** The checkpoint the last match move selected (a selection change to it keeps `currentRow`). */
let selectedByMatch = -1;

/** "Next match" / "Previous match". */
export async function moveMatch(delta: 1 | -1): Promise<void> {
  const s = get();
  if (s.allSessions && s.query.trim() !== '' && s.hits.length > 0) return moveAcrossSessions(delta);
  const row = nextRow(s.rows ?? [], currentRow(), delta);
  if (row !== undefined) goToRow(row);
}

async function moveAcrossSessions(delta: 1 | -1): Promise<void> {
  const target = nextHit(get().hits, main().sessionId, currentRow(), delta);
  if (target) await openHit(target);
}

/** Show a hit: open its session when it is another one, then go to its row. */
export async function openHit(hit: SearchHit): Promise<void> {
  if (hit.session !== main().sessionId) await selectSession(hit.session);
  if (hit.index !== undefined) goToRow(hit.index);
}

/** Prompt rows of the current list, asked once per list (the `p` key). */
let promptRows: { session: string; total: number; rows: number[] } | null = null;

/** Jump to the next (1) or previous (-1) prompt of the conversation. */
export async function movePrompt(delta: 1 | -1): Promise<void> {
  const { workspace, sessionId, showHidden, total } = main();
  if (!workspace || !sessionId) return;
  if (!promptRows || promptRows.session !== sessionId || promptRows.total !== total) {
    const r = take(
      await api.search({
        workspace: workspace.id,
        session: sessionId,
        query: '',
        roles: ['user'],
        includeHidden: showHidden,
        limit: ROW_LIMIT,
      }),
    );
    if (!r) return;
    promptRows = { session: sessionId, total, rows: r.hits.map((h) => h.index ?? -1).filter((i) => i >= 0) };
  }
  const row = nextRow(promptRows.rows, currentRow(), delta);
  if (row !== undefined) goToRow(row);
}

export function requestSearchFocus(): void {
  set({ focusRequest: get().focusRequest + 1 });
}

// ---------------------------------------------------------------- labels

export const startLabel = (messageId: string) => set({ editingLabel: messageId });
export const cancelLabel = () => set({ editingLabel: null });

/** Save (text) or remove (null) a checkpoint's label, then show the list again with it. */
export async function saveLabel(hash: Hash, text: string | null): Promise<boolean> {
  const ws = main().workspace;
  if (!ws) return false;
  const done = take(await api.label({ workspace: ws.id, target: hash, text }));
  if (!done) return false;
  set({ editingLabel: null });
  await reloadTimeline({ follow: false });
  if (narrowing()) await runSearch();
  return true;
}

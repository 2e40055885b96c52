/**
 * The session browser and what it offers around sessions (issues 12 and 13): whether the "Session list" is
 * open, the agents' sessions found for the folder that are not in Retrace yet (or went on since), an import in
 * progress, and the folder's settings ("Always import", "Record changes"). Its own zustand store beside the
 * main one (store/index.ts), whose workspace, session and alert it reads and writes through the same API.
 */
import { create } from 'zustand';
import type { ErrorInfo } from '../../../shared/errors';
import type {
  AgentName,
  FolderSettings,
  FoundSessionInfo,
  RetraceEvent,
  SessionSummary,
  WorkspaceInfo,
} from '../../../shared/model';
import type { Result } from '../../../shared/result';
import { api } from '../bridge';
import { selectSession, useStore } from './index';

export interface ImportProgress {
  done: number;
  total: number;
  /** The session being imported now; null once the last one is done. */
  title: string | null;
}

export interface SessionsState {
  /** The workspace the rest describes (answers for a folder closed meanwhile are dropped). */
  workspace: string | null;
  browserOpen: boolean;
  /** Found sessions not imported yet, or changed since their import, newest first. */
  found: FoundSessionInfo[];
  /** The "Found sessions" notice shows (until dismissed, or nothing is left to import). */
  foundOpen: boolean;
  importing: ImportProgress | null;
  settings: FolderSettings | null;
  /** A settings change is on its way (the switch waits for the answer, which may take a watcher's start). */
  settingsBusy: boolean;
}

const initial: SessionsState = {
  workspace: null,
  browserOpen: false,
  found: [],
  foundOpen: false,
  importing: null,
  settings: null,
  settingsBusy: false,
};

export const useSessions = create<SessionsState>()(() => initial);
const get = useSessions.getState;
const set = useSessions.setState;

function take<T>(r: Result<T>): T | undefined {
  if (r.ok) return r.value;
  showError(r.error);
  return undefined;
}

const showError = (error: ErrorInfo) => useStore.setState({ error });

export const AGENT_LABELS: Record<AgentName, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini',
  cline: 'Cline',
  cli: 'CLI',
  watch: 'Watch',
};

export function newestFirst(list: SessionSummary[]): SessionSummary[] {
  return [...list].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
}

// ---------------------------------------------------------------- the session browser

export const openBrowser = () => set({ browserOpen: true });
export const closeBrowser = () => set({ browserOpen: false });
export const toggleBrowser = () => set({ browserOpen: !get().browserOpen });

export async function pickSession(id: string): Promise<void> {
  set({ browserOpen: false });
  if (useStore.getState().sessionId !== id) await selectSession(id);
}

// ---------------------------------------------------------------- found sessions

/** A folder was opened: its settings, then what agents recorded there; import at once when it always should. */
export async function folderOpened(ws: WorkspaceInfo): Promise<void> {
  set({ ...initial, workspace: ws.id });
  const settings = take(await api.folderSettings({ workspace: ws.id }));
  if (get().workspace !== ws.id) return;
  if (settings) set({ settings });
  const pending = await refreshFound();
  if (pending.length === 0) return;
  if (settings?.alwaysImport) await importFound();
  else set({ foundOpen: true });
}

/** Ask again what is found and not (or no longer) in Retrace; returns that list. */
export async function refreshFound(): Promise<FoundSessionInfo[]> {
  const ws = get().workspace;
  if (!ws) return [];
  const r = await api.discover({ workspace: ws });
  if (get().workspace !== ws) return [];
  const list = take(r);
  if (!list) return [];
  const pending = list
    .filter((s) => !s.imported || s.changed)
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  set({ found: pending, ...(pending.length === 0 ? { foundOpen: false } : {}) });
  return pending;
}

/**
 * Import one found session (`agent:id`), or every one. Progress arrives as events; a session that failed shows
 * as the alert with its code, the others are in. A single imported session opens.
 */
export async function importFound(key?: string): Promise<void> {
  const ws = get().workspace;
  if (!ws || get().importing) return;
  ownImport = true;
  set({ importing: { done: 0, total: key ? 1 : get().found.length, title: null } });
  try {
    const results = take(await api.importFound({ workspace: ws, ...(key ? { session: key } : {}) }));
    if (!results || get().workspace !== ws) return;
    const failed = results.find((r) => r.action === 'failed');
    if (failed?.error)
      showError({
        code: failed.error.code,
        message: `${failed.title || failed.id}: ${failed.error.message}`,
      } as ErrorInfo);
    const done = results.filter((r) => r.action === 'imported' || r.action === 'updated');
    const opened = key && done[0] ? done[0].id : !useStore.getState().sessionId ? done[0]?.id : undefined;
    if (opened) await selectSession(opened);
  } finally {
    ownImport = false;
    if (get().workspace === ws) set({ importing: null });
  }
  await refreshFound();
}

/** This window started the import under way (its end is the answer; another window's end is its last event). */
let ownImport = false;

export const dismissFound = () => set({ foundOpen: false });

// ---------------------------------------------------------------- folder settings

export async function changeSettings(change: Partial<FolderSettings>): Promise<void> {
  const ws = get().workspace;
  const before = get().settings;
  if (!ws || !before || get().settingsBusy) return;
  // "Always import" shows at once; "Record changes" shows on only once the watcher runs (an edit made as soon as
  // the switch says on is recorded). The answer, or a refusal (a folder that cannot be watched), has the last word.
  const { recordChanges: _wait, ...shownNow } = change;
  set({ settingsBusy: true, settings: { ...before, ...shownNow } });
  try {
    const settings = take(await api.setFolderSettings({ workspace: ws, ...change }));
    if (get().workspace === ws) set({ settings: settings ?? before });
  } finally {
    set({ settingsBusy: false });
  }
}

// ---------------------------------------------------------------- events

export function handleSessionsEvent(e: RetraceEvent): void {
  if (e.type === 'command' || e.workspace !== get().workspace) return;
  switch (e.type) {
    case 'import-progress':
      if (e.title !== null) set({ importing: { done: e.done, total: e.total, title: e.title } });
      else if (!ownImport) set({ importing: null });
      break;
    case 'folder-settings':
      set({ settings: e.settings });
      break;
    case 'sessions-changed':
      // Imported elsewhere (another window, the terminal): the offer lists only what is still to import.
      if (get().found.length > 0 && !get().importing) void refreshFound();
      break;
  }
}

/** The workspace slice: boot, opening a folder, its status and its sessions. */
import type { FirstView } from '../../../shared/contract';
import type { ErrorInfo } from '../../../shared/errors';
import type { WorkspaceInfo } from '../../../shared/model';
import { newestSession } from '../../../shared/newestSession';
import { api } from '../bridge';
import { warmDateFormats } from '../format';
import { loadRestores } from './restore';
import { freshState, get, PAGE_SIZE, set, take } from './state';
import { reloadTimeline, showFirstPage } from './timeline';

export async function boot(): Promise<void> {
  // The folder's first view in the same answer (a host that has it at hand gives it): nothing else to wait for.
  // The date formatters built while the page waits for the answer (idle), not in the frame that shows it.
  if (typeof requestIdleCallback === 'function') requestIdleCallback(warmDateFormats);
  const info = take(await api.init({ firstView: { includeHidden: false, limit: PAGE_SIZE } }));
  if (!info) return set({ phase: 'open-folder' });
  set({ host: info.host, ...(info.openError ? { error: info.openError as ErrorInfo } : {}) });
  if (info.workspace) await showWorkspace(info.workspace, info.firstView);
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

/**
 * Start the folder from a fresh state (a new scope too): only the host and a pending alert carry over. `view`: its
 * first view, already answered (with init): the window's first frame of the folder then shows it.
 */
async function showWorkspace(ws: WorkspaceInfo, view?: FirstView): Promise<void> {
  const { host, error } = get();
  set({ ...freshState(), host, phase: 'workspace', workspace: ws, error });
  document.title = `${ws.name} — Retrace`;
  // The first view (the newest session's timeline) first, in one request; the storage figure and the restores then.
  if (view) showFirstView(view);
  else await loadFirstView(ws);
  if (get().workspace !== ws) return;
  set({ firstViewShown: true });
  await Promise.all([refreshStatus(), loadRestores()]);
}

/** The folder's sessions and the newest one's page at its latest checkpoint, selected. */
async function loadFirstView(ws: WorkspaceInfo): Promise<void> {
  const view = take(await api.firstView({ workspace: ws.id, includeHidden: get().showHidden, limit: PAGE_SIZE }));
  if (view && get().workspace === ws) showFirstView(view);
}

function showFirstView(view: FirstView): void {
  set({ sessions: view.sessions, ...(view.timeline ? { sessionId: view.timeline.session } : {}) });
  if (view.timeline) showFirstPage(view.timeline);
}

export async function refreshStatus(): Promise<void> {
  const ws = get().workspace;
  if (!ws) return;
  const r = await api.status({ workspace: ws.id });
  if (r.ok && get().workspace === ws) set({ status: r.value });
}

export async function loadSessions(pickLatest: boolean): Promise<void> {
  const ws = get().workspace;
  if (!ws) return;
  const sessions = take(await api.listSessions({ workspace: ws.id }));
  if (!sessions || get().workspace !== ws) return;
  set({ sessions });
  const current = get().sessionId;
  if ((pickLatest || !current || !sessions.some((s) => s.id === current)) && sessions.length > 0) {
    const latest = newestSession(sessions)!;
    if (latest.id !== current) await selectSession(latest.id);
  }
}

export async function selectSession(id: string): Promise<void> {
  set({ sessionId: id, selected: -1, summary: null, file: null, diffKey: null, fileKey: null, preview: null });
  await reloadTimeline({ follow: true });
}

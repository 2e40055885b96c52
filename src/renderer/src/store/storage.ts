/**
 * The Storage dialog's state (issue 14 item 5): storage per session, the budget, forgetting a session with a
 * confirmation, collecting now. Its own zustand store; it reads the workspace from the main store and puts
 * failures in the main store's alert, like every other action.
 */
import { create } from 'zustand';
import type { ErrorInfo } from '../../../shared/errors';
import type { StorageBudget, StorageReport } from '../../../shared/model';
import type { Result } from '../../../shared/result';
import { api } from '../bridge';
import { refreshStatus, useStore } from './index';

interface StorageState {
  open: boolean;
  report: StorageReport | null;
  /** The session whose "Forget" waits for its confirmation. */
  confirming: string | null;
  busy: boolean;
  /** One line after an action ("Forgot …", "Removed 2 sessions …"). */
  notice: string | null;
}

export const useStorage = create<StorageState>()(() => ({
  open: false,
  report: null,
  confirming: null,
  busy: false,
  notice: null,
}));
const set = useStorage.setState;

function take<T>(r: Result<T>): T | undefined {
  if (r.ok) return r.value;
  useStore.setState({ error: r.error as ErrorInfo });
  return undefined;
}

function workspaceId(): string | null {
  return useStore.getState().workspace?.id ?? null;
}

export async function loadStorage(): Promise<void> {
  const ws = workspaceId();
  if (!ws) return;
  const report = take(await api.storage({ workspace: ws }));
  if (report) set({ report });
}

export function toggleStorage(): void {
  const open = !useStorage.getState().open;
  set({ open, confirming: null, notice: null });
  if (open) void loadStorage();
}

export const closeStorage = () => set({ open: false, confirming: null });
export const askForget = (session: string) => set({ confirming: session, notice: null });
export const cancelForget = () => set({ confirming: null });

/** Forget the session awaiting confirmation; a kept one (labelled, being recorded) is forced: the person confirmed. */
export async function confirmForget(): Promise<void> {
  const ws = workspaceId();
  const { confirming, report } = useStorage.getState();
  if (!ws || !confirming) return;
  const kept = report?.sessions.find((s) => s.id === confirming)?.kept ?? null;
  set({ busy: true });
  try {
    const res = take(await api.forget({ workspace: ws, session: confirming, force: kept !== null }));
    set({ confirming: null, ...(res ? { notice: `Forgot ${confirming}` } : {}) });
    await Promise.all([loadStorage(), refreshStatus()]);
  } finally {
    set({ busy: false });
  }
}

export async function saveBudget(budget: StorageBudget): Promise<void> {
  const ws = workspaceId();
  if (!ws) return;
  set({ busy: true });
  try {
    if (take(await api.setStorageBudget({ workspace: ws, ...budget }))) {
      set({ notice: 'Budget saved' });
      await loadStorage();
    }
  } finally {
    set({ busy: false });
  }
}

/** `retrace gc` with the saved budget. */
export async function collectNow(): Promise<void> {
  const ws = workspaceId();
  if (!ws) return;
  set({ busy: true });
  try {
    const res = take(await api.gc({ workspace: ws }));
    if (res)
      set({
        notice:
          res.removed.length === 0
            ? 'Nothing to remove'
            : `Removed ${res.removed.length} session${res.removed.length === 1 ? '' : 's'}`,
      });
    await Promise.all([loadStorage(), refreshStatus()]);
  } finally {
    set({ busy: false });
  }
}

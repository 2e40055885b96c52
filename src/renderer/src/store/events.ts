/**
 * The events slice: live events from the engine, menu and key commands, the files on disk changing, and
 * coming back after the connection dropped.
 */
import type { AppCommand, RetraceEvent } from '../../../shared/model';
import { api } from '../bridge';
import { isConnectionError } from '../wsClient';
import { afterRestore, loadRestores, previewRestore, restore, undoRestore } from './restore';
import { move, refreshDiff, setCompare, toggleInline } from './selection';
import { get, set } from './state';
import { appendTail, reloadTimeline, toggleShowHidden } from './timeline';
import { boot, loadSessions, refreshStatus } from './workspace';

/** Back after the connection dropped (e.g. `retrace serve` restarted): reopen the folder and reload what shows it. */
export async function resync(): Promise<void> {
  if (get().error && isConnectionError(get().error!)) set({ error: null });
  const ws = get().workspace;
  if (!ws) return void boot();
  const reopened = await api.openWorkspace({ path: ws.root });
  if (!reopened.ok) return set({ error: reopened.error });
  get().scope.diffs.forgetWorking();
  await Promise.all([reloadTimeline({ follow: false }), loadSessions(false), refreshStatus()]);
}

export const dismissError = () => set({ error: null });

/** The files on disk may have changed (an event, or the user coming back to the window): reload what shows them. */
export function refreshWorking(): void {
  if (!get().workspace) return;
  get().scope.diffs.forgetWorking();
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

/**
 * The restore slice: restore, its preview, undo, the ledger (Restores panel) and the banner that describes the
 * last restore or undo.
 */
import type { ErrorInfo } from '../../../shared/errors';
import type { Hash, RestoreEntry, RestoreMode } from '../../../shared/model';
import { undoLabel } from '../../../shared/undoWords';
import { api } from '../bridge';
import { describeFailedRestore, describeRestore, describeUndo, shortHash, staleNote } from './describe';
import { refreshDiff } from './selection';
import { get, set, take, type Banner, type State } from './state';
import { reloadTimeline } from './timeline';
import { loadSessions, refreshStatus } from './workspace';

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
export const dismissBanner = () => set({ banner: null });
export const closePreview = () => set({ preview: null });

/** A restore or undo changed the files (and maybe the conversation): reload what shows them. */
export async function afterRestore(conversationChanged: boolean): Promise<void> {
  get().scope.diffs.forgetWorking();
  const jobs: Promise<void>[] = [refreshStatus()];
  if (conversationChanged) jobs.push(reloadTimeline({ follow: false }), loadSessions(false));
  else if (get().compare === 'since') jobs.push(refreshDiff({ keepFile: true }));
  await Promise.all(jobs);
}

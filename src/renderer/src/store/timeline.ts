/**
 * The timeline slice: the session's messages, loaded a page at a time as the list scrolls. Which pages are
 * loaded is the open folder's scope, so a late page of another folder (or an older list) is dropped.
 */
import type { Message, TimelinePage } from '../../../shared/model';
import type { Result } from '../../../shared/result';
import { api } from '../bridge';
import { select } from './selection';
import { get, PAGE_SIZE, set, take, useStore, type WorkspaceScope } from './state';
import { loadSessions } from './workspace';

/**
 * Reload the list from scratch, keeping the checkpoint selected when the answer arrives (the user may have
 * moved meanwhile) if it is still listed; `follow`: select the latest checkpoint instead.
 */
export async function reloadTimeline(opts: { follow: boolean }): Promise<void> {
  const { workspace, sessionId, showHidden } = get();
  if (!workspace || !sessionId) return;
  const reload = beginReload();
  // Following: the page that holds the checkpoint to select comes first, so the list shows it at once.
  const r = await api.timeline({
    workspace: workspace.id,
    session: sessionId,
    includeHidden: showHidden,
    offset: 0,
    limit: PAGE_SIZE,
    ...(opts.follow ? { anchor: 'latest-checkpoint' as const } : {}),
  });
  landReload(reload, r, opts);
}

/** The first page of a session the window just opened on (the folder's first view), its latest checkpoint selected. */
export function showFirstPage(page: TimelinePage): void {
  landReload(beginReload(), { ok: true, value: page }, { follow: true, diffAfterPaint: true });
}

/** A full reload starts: pages of the list it replaces are forgotten, and late answers to it dropped. */
function beginReload(): { gen: number; scope: WorkspaceScope } {
  const { scope } = get();
  const gen = get().timelineGen + 1;
  scope.loadedPages.clear();
  scope.pagesInFlight.clear();
  scope.reloading = gen;
  set({ timelineGen: gen });
  return { gen, scope };
}

function landReload(
  reload: { gen: number; scope: WorkspaceScope },
  answer: Result<TimelinePage>,
  opts: { follow: boolean; diffAfterPaint?: boolean },
): void {
  const { scope, gen } = reload;
  if (get().scope !== scope || get().timelineGen !== gen) return;
  scope.reloading = 0;
  const tailPending = scope.tailPending;
  scope.tailPending = false;
  const page = take(answer);
  if (!page) return;
  const messages: (Message | undefined)[] = new Array<Message | undefined>(page.total);
  page.messages.forEach((m, i) => (messages[page.offset + i] = m));
  scope.loadedPages.add(page.offset / PAGE_SIZE);
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
  select(selected, { keepFile: kept >= 0, diffAfterPaint: opts.diffAfterPaint ?? false });
  // Messages recorded while this reload was on its way: the answer may predate them.
  if (tailPending) void appendTail();
}

/** Load the pages that hold rows start..end (inclusive), if not loaded yet. */
export async function ensureRange(start: number, end: number): Promise<void> {
  const { workspace, sessionId, showHidden, total, timelineGen, scope } = get();
  if (!workspace || !sessionId || total === 0) return;
  const first = Math.floor(Math.max(0, start) / PAGE_SIZE);
  const last = Math.floor(Math.min(total - 1, end) / PAGE_SIZE);
  const wanted: number[] = [];
  for (let p = first; p <= last; p++) if (!scope.loadedPages.has(p) && !scope.pagesInFlight.has(p)) wanted.push(p);
  await Promise.all(
    wanted.map(async (p) => {
      scope.pagesInFlight.add(p);
      const r = await api.timeline({
        workspace: workspace.id,
        session: sessionId,
        includeHidden: showHidden,
        offset: p * PAGE_SIZE,
        limit: PAGE_SIZE,
      });
      scope.pagesInFlight.delete(p);
      if (!r.ok || get().timelineGen !== timelineGen || get().scope !== scope) return;
      scope.loadedPages.add(p);
      const messages = get().messages.slice();
      r.value.messages.forEach((m, i) => (messages[r.value.offset + i] = m));
      set({ messages });
    }),
  );
}

/**
 * New messages were recorded: fetch the tail, and follow if the latest checkpoint was selected. While a full
 * reload is on its way the list in the state is the one it replaces (an undo that brought rewound messages back,
 * say): "was the latest selected" would be judged against it and jump the selection, so the tail waits for it.
 * So it does while this window restores or undoes: the event of its own rewrite can come before the answer, and
 * so before the reload that answer starts.
 */
export async function appendTail(): Promise<void> {
  const { workspace, sessionId, showHidden, total, checkpoints, selected, timelineGen, scope, busy } = get();
  if (!workspace || !sessionId) return;
  if (scope.reloading !== 0 || busy) {
    scope.tailPending = true;
    return;
  }
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
  if (!page || get().timelineGen !== timelineGen || get().scope !== scope) return;
  if (page.total < total) return reloadTimeline({ follow: false });
  const messages = get().messages.slice();
  messages.length = page.total;
  page.messages.forEach((m, i) => (messages[page.offset + i] = m));
  for (let p = Math.floor(offset / PAGE_SIZE); p <= Math.floor((page.total - 1) / PAGE_SIZE); p++)
    scope.loadedPages.add(p);
  set({ total: page.total, messages, checkpoints: page.checkpoints });
  if (wasAtLatest && page.checkpoints.length - 1 !== selected) select(page.checkpoints.length - 1);
  // Stats of the last message can change when a checkpoint lands on it; the header counts too.
  void loadSessions(false);
}

export function toggleShowHidden(): void {
  set({ showHidden: !get().showHidden });
  void reloadTimeline({ follow: false });
}

// This window's restore or undo ended: a tail that waited for it is fetched now, unless a reload will fetch it.
useStore.subscribe((now, before) => {
  const { scope } = now;
  if (before.busy && !now.busy && scope.tailPending && scope.reloading === 0) {
    scope.tailPending = false;
    void appendTail();
  }
});

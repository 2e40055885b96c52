/**
 * The selection slice: which checkpoint is selected, how it is compared, which file shows, and loading that
 * diff through the open folder's diff cache (prefetching the neighbours the user is likely to go to next).
 */
import type { DiffSide, DiffSummary, Hash } from '../../../shared/model';
import { firstFile } from '../fileTree';
import { markDataReady, markDiffRequested } from '../perf';
import { contentsKey, summaryKey } from './diffCache';
import { get, set, take, type CompareMode, type State } from './state';

/** The selected checkpoint's comparison: its two sides (for other stores, e.g. store/files.ts). */
export const currentSides = () => diffSides(get(), get().selected);

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

/**
 * Select a checkpoint by its place in the list; `keepFile` when it is the same checkpoint as before (a reload).
 * `diffAfterPaint`: ask for its diff once the frame that shows the selection has painted (the folder's first view:
 * the diff's git work would compete with that frame for the CPU).
 */
export function select(index: number, opts: { keepFile?: boolean; diffAfterPaint?: boolean } = {}): void {
  const s = get();
  if (s.checkpoints.length === 0) return set({ selected: -1, summary: null, file: null, diffKey: null, fileKey: null });
  const i = Math.max(0, Math.min(s.checkpoints.length - 1, index));
  set({ selected: i, preview: null });
  const load = () => void refreshDiff({ keepFile: opts.keepFile ?? false });
  if (!opts.diffAfterPaint) return load();
  // Nothing else may have moved meanwhile: a later selection asked for its own diff already.
  afterPaint(() => {
    if (get().scope === s.scope && get().selected === i && get().diffKey === null) load();
  });
}

/** Run `fn` after the next paint (the frame callback runs just before it; the timeout after it). */
function afterPaint(fn: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => setTimeout(fn));
  else setTimeout(fn);
}

/** `focus`: a key moved it, so focus follows to the selected timeline row (even at either end of the list). */
export function move(delta: number, opts: { focus?: boolean } = {}): void {
  const { selected, checkpoints } = get();
  if (checkpoints.length === 0) return;
  const next = Math.max(0, Math.min(checkpoints.length - 1, selected + delta));
  if (opts.focus) set({ focusRequest: get().focusRequest + 1 });
  if (next === selected) return;
  set({ direction: delta > 0 ? 1 : -1 });
  markDiffRequested();
  select(next);
}

export function setCompare(mode: CompareMode): void {
  if (get().compare === mode) return;
  set({ compare: mode });
  void refreshDiff({ keepFile: true });
}

export function setCompareFrom(index: number): void {
  set({ compareFrom: index });
  if (get().compare === 'pair') void refreshDiff({ keepFile: true });
}

/**
 * Load the selected checkpoint's diff. A new checkpoint shows its first file (UI.md); the same checkpoint
 * seen another way (compare mode, files changed on disk) keeps the file the user was reading, if still listed.
 */
export async function refreshDiff(opts: { keepFile: boolean }): Promise<void> {
  const s = get();
  const ws = s.workspace;
  const sides = diffSides(s, s.selected);
  if (!ws || !sides) return;
  const diffs = s.scope.diffs;
  const key = summaryKey(ws.id, sides.from, sides.to);
  set({ diffKey: key, diffError: null });
  let summary = diffs.cachedSummary(ws.id, sides.from, sides.to);
  if (!summary) {
    set({ summary: null });
    const r = await diffs.loadSummary(ws.id, sides.from, sides.to);
    if (get().diffKey !== key || get().scope !== s.scope) return;
    if (!r.ok) set({ diffError: r.error });
    summary = take(r);
    if (!summary) return;
  }
  if (sides.from === null && s.compare === 'step') noteBaseline(sides.to, summary);
  const previous = opts.keepFile ? get().selectedPath : null;
  const path = summary.files.some((f) => f.path === previous) ? previous : (firstFile(summary.files)?.path ?? null);
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
  const diffs = s.scope.diffs;
  const key = contentsKey(ws.id, sides.from, sides.to, path);
  const cached = diffs.cachedContents(ws.id, sides.from, sides.to, path);
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
  const r = await diffs.loadContents(ws.id, sides.from, sides.to, path, change?.oldPath);
  if (get().fileKey !== key || get().scope !== s.scope) return;
  if (!r.ok) set({ diffError: r.error });
  const file = take(r);
  if (file) {
    set({ file });
    markDataReady();
  }
}

/**
 * Warm the caches for the checkpoints ahead (three in the direction of travel, one behind), so the next
 * keypress renders from memory. The host runs git one call at a time, so the nearest goes first.
 */
function prefetchNeighbours(): void {
  const s = get();
  const ws = s.workspace;
  if (!ws) return;
  const d = s.direction;
  for (const i of [s.selected + d, s.selected - d, s.selected + 2 * d, s.selected + 3 * d]) {
    const sides = diffSides(s, i);
    if (!sides) continue;
    void s.scope.diffs.loadSummary(ws.id, sides.from, sides.to).then((r) => {
      const first = r.ok ? firstFile(r.value.files) : undefined;
      if (first && !first.binary)
        void s.scope.diffs.loadContents(ws.id, sides.from, sides.to, first.path, first.oldPath);
    });
  }
}

/** The first checkpoint's tree size, from its "nothing → this" summary (the row says "Baseline: N files"). */
function noteBaseline(hash: Hash, summary: DiffSummary): void {
  if (get().baseline?.hash !== hash) set({ baseline: { hash, files: summary.files.length } });
}

/** Asked by the first checkpoint's timeline row when it shows; shares the diff cache with a selection. */
export async function ensureBaseline(): Promise<void> {
  const { workspace, checkpoints, baseline, scope } = get();
  const first = checkpoints[0];
  if (!workspace || !first || baseline?.hash === first.hash) return;
  const r = await scope.diffs.loadSummary(workspace.id, null, first.hash);
  if (r.ok && get().scope === scope && get().checkpoints[0]?.hash === first.hash) noteBaseline(first.hash, r.value);
}

export function toggleInline(): void {
  set({ inline: !get().inline });
}

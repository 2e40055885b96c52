/**
 * The Changed files list's and diff's own state (issue 12): filter, flat/tree, collapsed folders, word wrap
 * (remembered across sessions), the Image diff's mode and its pictures, and the "Copied" confirmation.
 * A separate zustand store, next to the main one (store/index.ts), which it reads but never writes.
 */
import { create } from 'zustand';
import type { ErrorInfo } from '../../../shared/errors';
import type { ImageSides } from '../../../shared/model';
import { api } from '../bridge';
import { currentSides, useStore } from '.';
import { contentsKey } from './diffCache';
import { onFolderOpened } from './state';

export type ImageMode = 'side' | 'swipe' | 'onion';

export interface FilesState {
  filter: string;
  tree: boolean;
  /** Folder paths the user collapsed (all folders start open). */
  collapsed: ReadonlySet<string>;
  wordWrap: boolean;
  imageMode: ImageMode;
  /** Swipe: how much of the old picture shows, from the left (percent). */
  swipe: number;
  /** Onion skin: the new picture's opacity (percent). */
  onion: number;
  /** The last copy's confirmation (or failure), shown for a few seconds. */
  copied: { text: string; ok: boolean; id: number } | null;
  /** The pictures of the file shown, by its content key (store/diffCache.ts's contentsKey). */
  images: { key: string; sides: ImageSides | null; error: ErrorInfo | null } | null;
}

const WORD_WRAP_KEY = 'retrace.diff.wordWrap';
const TREE_KEY = 'retrace.files.tree';
const COPIED_MS = 3000;

function remembered(key: string): boolean {
  try {
    return localStorage.getItem(key) === 'true';
  } catch {
    return false;
  }
}
function remember(key: string, on: boolean): void {
  try {
    localStorage.setItem(key, String(on));
  } catch {
    // Storage may be off (private mode): the toggle still works for this page.
  }
}

export const useFiles = create<FilesState>()(() => ({
  filter: '',
  tree: remembered(TREE_KEY),
  collapsed: new Set<string>(),
  wordWrap: remembered(WORD_WRAP_KEY),
  imageMode: 'side',
  swipe: 50,
  onion: 50,
  copied: null,
  images: null,
}));
const get = useFiles.getState;
const set = useFiles.setState;

export const setFilter = (filter: string) => set({ filter });

export function toggleTree(): void {
  const tree = !get().tree;
  remember(TREE_KEY, tree);
  set({ tree });
}

export function toggleFolder(path: string): void {
  const collapsed = new Set(get().collapsed);
  if (!collapsed.delete(path)) collapsed.add(path);
  set({ collapsed });
}

export function toggleWordWrap(): void {
  const wordWrap = !get().wordWrap;
  remember(WORD_WRAP_KEY, wordWrap);
  set({ wordWrap });
}

export const setImageMode = (imageMode: ImageMode) => set({ imageMode });
export const setSwipe = (swipe: number) => set({ swipe });
export const setOnion = (onion: number) => set({ onion });

let copyTimer: ReturnType<typeof setTimeout> | undefined;
let copies = 0;

/** Copy `text`; `what` names it in the confirmation ("Copied path src/a.ts"). */
export async function copyText(text: string, what: string): Promise<void> {
  let ok = true;
  try {
    // Present in secure contexts only: the app's own protocol, and `retrace serve` on loopback.
    if (!navigator.clipboard) throw new Error('no clipboard');
    await navigator.clipboard.writeText(text);
  } catch {
    ok = false;
  }
  set({
    copied: {
      text: ok ? `Copied ${what}` : `Could not copy ${what}: the clipboard is not available here`,
      ok,
      id: ++copies,
    },
  });
  clearTimeout(copyTimer);
  copyTimer = setTimeout(() => set({ copied: null }), COPIED_MS);
}

/** Desktop app only (the renderer hides the action elsewhere): the file opens in its default application. */
export async function openInEditor(path: string): Promise<void> {
  const ws = useStore.getState().workspace;
  if (!ws) return;
  const r = await api.openInEditor({ workspace: ws.id, path });
  if (!r.ok) useStore.setState({ error: r.error });
}

// ---------------------------------------------------------------- the Image diff's pictures

/** Pictures of checkpoint pairs kept in memory, by the characters of their base64 (oldest out first). */
const IMAGE_CACHE_BUDGET = 64 * 1024 * 1024;
const imageCache = new Map<string, { sides: ImageSides; weight: number }>();
let imageCacheWeight = 0;

// Nothing of a folder survives opening another: its filter, open folders, pictures and their cache.
onFolderOpened(() => {
  imageCache.clear();
  imageCacheWeight = 0;
  set({ filter: '', collapsed: new Set<string>(), copied: null, images: null });
});

const weigh = (s: ImageSides) => (s.before?.base64?.length ?? 0) + (s.after?.base64?.length ?? 0);

function keep(key: string, sides: ImageSides): void {
  const weight = weigh(sides);
  if (weight > IMAGE_CACHE_BUDGET / 2 || imageCache.has(key)) return;
  imageCache.set(key, { sides, weight });
  imageCacheWeight += weight;
  for (const [k, v] of imageCache) {
    if (imageCacheWeight <= IMAGE_CACHE_BUDGET) break;
    imageCache.delete(k);
    imageCacheWeight -= v.weight;
  }
}

/**
 * Load the pictures of `path` in the current comparison, for the content key `key`. Anything compared with the
 * files now is asked for afresh each time (they may have changed); pairs of checkpoints are kept, within a budget.
 */
export async function loadImages(key: string, path: string, oldPath?: string): Promise<void> {
  const ws = useStore.getState().workspace;
  const sides = currentSides();
  if (!ws || !sides) return;
  // A view mounted late (its code loads lazily) may ask for a file of a checkpoint the user has already left:
  // asking the comparison now selected would cache that one's answer under this key.
  if (contentsKey(ws.id, sides.from, sides.to, path) !== key) return;
  const cached = sides.to === 'working' ? undefined : imageCache.get(key);
  if (cached) return set({ images: { key, sides: cached.sides, error: null } });
  set({ images: { key, sides: null, error: null } });
  const r = await api.fileImages({
    workspace: ws.id,
    from: sides.from,
    to: sides.to,
    path,
    ...(oldPath ? { oldPath } : {}),
  });
  if (r.ok && sides.to !== 'working') keep(key, r.value);
  if (get().images?.key !== key) return; // another file was picked meanwhile
  set({ images: { key, sides: r.ok ? r.value : null, error: r.ok ? null : r.error } });
}

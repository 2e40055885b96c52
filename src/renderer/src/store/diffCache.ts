/**
 * Caches of diff summaries and file contents. A pair of commits never changes, so those answers are kept
 * (bounded, least recently used first out); anything compared with "working" is dropped when files change.
 * Requests in flight are shared, so a prefetch and a keypress never ask twice.
 */
import type { DiffSide, DiffSummary, FileContents, Hash } from '../../../shared/model';
import type { Result } from '../../../shared/result';
import { api } from '../bridge';

const MAX_ENTRIES = 400;

class LruCache<V> {
  private readonly map = new Map<string, V>();
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > MAX_ENTRIES) this.map.delete(this.map.keys().next().value!);
  }
  deleteWhere(pred: (key: string) => boolean): void {
    for (const k of [...this.map.keys()]) if (pred(k)) this.map.delete(k);
  }
  clear(): void {
    this.map.clear();
  }
}

export const summaryKey = (workspace: string, from: Hash | null, to: DiffSide) => `${workspace}|${from ?? '-'}|${to}`;
export const contentsKey = (workspace: string, from: Hash | null, to: DiffSide, path: string) =>
  `${summaryKey(workspace, from, to)}|${path}`;

/**
 * "working" answers go stale as soon as anything edits the folder, and nothing reports plain file edits; keep
 * them just long enough to cover a burst of keypresses and the prefetch.
 */
const WORKING_TTL_MS = 3000;
const workingSince = new Map<string, number>();
function fresh(key: string, to: DiffSide): boolean {
  if (to !== 'working') return true;
  const t = workingSince.get(key);
  return t !== undefined && performance.now() - t < WORKING_TTL_MS;
}
function stamp(key: string, to: DiffSide): void {
  if (to === 'working') workingSince.set(key, performance.now());
}

const summaries = new LruCache<Promise<Result<DiffSummary>>>();
const resolvedSummaries = new LruCache<DiffSummary>();
const contents = new LruCache<Promise<Result<FileContents>>>();
const resolvedContents = new LruCache<FileContents>();

/** A summary already in memory, for a synchronous render on selection. */
export function cachedSummary(workspace: string, from: Hash | null, to: DiffSide): DiffSummary | undefined {
  const key = summaryKey(workspace, from, to);
  return fresh(key, to) ? resolvedSummaries.get(key) : undefined;
}

export function cachedContents(
  workspace: string,
  from: Hash | null,
  to: DiffSide,
  path: string,
): FileContents | undefined {
  const key = contentsKey(workspace, from, to, path);
  return fresh(key, to) ? resolvedContents.get(key) : undefined;
}

export function loadSummary(workspace: string, from: Hash | null, to: DiffSide): Promise<Result<DiffSummary>> {
  const key = summaryKey(workspace, from, to);
  let p = fresh(key, to) ? summaries.get(key) : undefined;
  if (!p) {
    stamp(key, to);
    p = api.diffSummary({ workspace, from, to }).then((r) => {
      if (r.ok) resolvedSummaries.set(key, r.value);
      else summaries.deleteWhere((k) => k === key); // do not cache failures
      return r;
    });
    summaries.set(key, p);
  }
  return p;
}

export function loadContents(
  workspace: string,
  from: Hash | null,
  to: DiffSide,
  path: string,
  oldPath?: string,
): Promise<Result<FileContents>> {
  const key = contentsKey(workspace, from, to, path);
  let p = fresh(key, to) ? contents.get(key) : undefined;
  if (!p) {
    stamp(key, to);
    p = api.fileContents({ workspace, from, to, path, ...(oldPath ? { oldPath } : {}) }).then((r) => {
      if (r.ok) resolvedContents.set(key, r.value);
      else contents.deleteWhere((k) => k === key);
      return r;
    });
    contents.set(key, p);
  }
  return p;
}

/** The files on disk changed: forget everything compared with them. */
export function forgetWorking(): void {
  workingSince.clear();
  const isWorking = (k: string) => k.split('|')[2] === 'working';
  for (const c of [summaries, resolvedSummaries, contents, resolvedContents] as LruCache<unknown>[])
    c.deleteWhere(isWorking);
}

export function forgetAll(): void {
  workingSince.clear();
  for (const c of [summaries, resolvedSummaries, contents, resolvedContents] as LruCache<unknown>[]) c.clear();
}

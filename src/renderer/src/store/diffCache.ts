/**
 * Caches of diff summaries and file contents for one open folder. A pair of commits never changes, so those
 * answers are kept (bounded, least recently used first out); anything compared with "working" is dropped when
 * files change. Requests in flight are shared, so a prefetch and a keypress never ask twice. Each folder gets
 * its own cache (the store's workspace scope), so nothing of one folder is left when another opens.
 */
import type { DiffSide, DiffSummary, FileContents, Hash } from '../../../shared/model';
import type { Result } from '../../../shared/result';
import { api } from '../bridge';

const MAX_ENTRIES = 400;

class LruCache<V> {
  private readonly map = new Map<string, V>();
  get size(): number {
    return this.map.size;
  }
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
}

export const summaryKey = (workspace: string, from: Hash | null, to: DiffSide) => `${workspace}|${from ?? '-'}|${to}`;
export const contentsKey = (workspace: string, from: Hash | null, to: DiffSide, path: string) =>
  `${summaryKey(workspace, from, to)}|${path}`;

/**
 * "working" answers go stale as soon as anything edits the folder, and nothing reports plain file edits; keep
 * them just long enough to cover a burst of keypresses and the prefetch.
 */
const WORKING_TTL_MS = 3000;

export class DiffCache {
  private readonly workingSince = new Map<string, number>();
  private readonly summaries = new LruCache<Promise<Result<DiffSummary>>>();
  private readonly resolvedSummaries = new LruCache<DiffSummary>();
  private readonly contents = new LruCache<Promise<Result<FileContents>>>();
  private readonly resolvedContents = new LruCache<FileContents>();

  /** How many answers (and requests in flight) it holds. */
  get size(): number {
    return this.caches().reduce((n, c) => n + c.size, 0);
  }

  /** A summary already in memory, for a synchronous render on selection. */
  cachedSummary(workspace: string, from: Hash | null, to: DiffSide): DiffSummary | undefined {
    const key = summaryKey(workspace, from, to);
    return this.fresh(key, to) ? this.resolvedSummaries.get(key) : undefined;
  }

  cachedContents(workspace: string, from: Hash | null, to: DiffSide, path: string): FileContents | undefined {
    const key = contentsKey(workspace, from, to, path);
    return this.fresh(key, to) ? this.resolvedContents.get(key) : undefined;
  }

  loadSummary(workspace: string, from: Hash | null, to: DiffSide): Promise<Result<DiffSummary>> {
    const key = summaryKey(workspace, from, to);
    let p = this.fresh(key, to) ? this.summaries.get(key) : undefined;
    if (!p) {
      this.stamp(key, to);
      p = api.diffSummary({ workspace, from, to }).then((r) => {
        if (r.ok) this.resolvedSummaries.set(key, r.value);
        else this.summaries.deleteWhere((k) => k === key); // do not cache failures
        return r;
      });
      this.summaries.set(key, p);
    }
    return p;
  }

  loadContents(
    workspace: string,
    from: Hash | null,
    to: DiffSide,
    path: string,
    oldPath?: string,
  ): Promise<Result<FileContents>> {
    const key = contentsKey(workspace, from, to, path);
    let p = this.fresh(key, to) ? this.contents.get(key) : undefined;
    if (!p) {
      this.stamp(key, to);
      p = api.fileContents({ workspace, from, to, path, ...(oldPath ? { oldPath } : {}) }).then((r) => {
        if (r.ok) this.resolvedContents.set(key, r.value);
        else this.contents.deleteWhere((k) => k === key);
        return r;
      });
      this.contents.set(key, p);
    }
    return p;
  }

  /** The files on disk changed: forget everything compared with them. */
  forgetWorking(): void {
    this.workingSince.clear();
    const isWorking = (k: string) => k.split('|')[2] === 'working';
    for (const c of this.caches()) c.deleteWhere(isWorking);
  }

  private caches(): LruCache<unknown>[] {
    return [this.summaries, this.resolvedSummaries, this.contents, this.resolvedContents];
  }

  private fresh(key: string, to: DiffSide): boolean {
    if (to !== 'working') return true;
    const t = this.workingSince.get(key);
    return t !== undefined && performance.now() - t < WORKING_TTL_MS;
  }

  private stamp(key: string, to: DiffSide): void {
    if (to === 'working') this.workingSince.set(key, performance.now());
  }
}

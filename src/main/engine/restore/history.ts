/**
 * The restore history, derived from the ledger alone (so it survives reloads and is the same for every window
 * and the terminal): which entries are undone, and whether undoing a given one now is safe (I14).
 *
 * An entry is undone when a later undo entry names it (`undoOf`) and that undo is not itself undone. Walking
 * the ledger newest first settles each undo's own state before the entry it names is reached.
 */
import { RetraceError } from '../../../shared/errors';
import type { RestoreEntry } from '../../../shared/model';
import type { LedgerEntry, LedgerRestore } from '../ledger';

export interface HistoryEntry {
  entry: LedgerRestore;
  undone: boolean;
  /** Every file it planned to write or delete, and what it did (planned ⊇ changed, but old entries may differ). */
  files: Set<string>;
}

/** Restore (and undo) entries, oldest first, each with its derived undone state. Rollbacks are not restores. */
export function restoreHistory(ledger: LedgerEntry[]): HistoryEntry[] {
  const restores = ledger.filter((e): e is LedgerRestore => e.type === 'restore');
  const undone = new Set<string>();
  for (let i = restores.length - 1; i >= 0; i--) {
    const e = restores[i]!;
    if (e.undoOf && !undone.has(e.rid)) undone.add(e.undoOf);
  }
  return restores.map((entry) => ({
    entry,
    undone: undone.has(entry.rid),
    files: new Set([...entry.paths, ...entry.changed]),
  }));
}

/** `retrace restores`: newest first. */
export function listRestores(ledger: LedgerEntry[]): RestoreEntry[] {
  const history = restoreHistory(ledger);
  const byRid = new Map(history.map((h) => [h.entry.rid, h.entry]));
  const undoable = undoableFlags(history);
  const listed = history.map(({ entry, undone }, at) => {
    const out: RestoreEntry = {
      restore: entry.rid,
      mode: entry.undoOf ? 'undo' : entry.mode,
      target: entry.target,
      ts: entry.ts,
      changed: entry.changed.length,
      undone,
      undoable: undoable[at]!,
    };
    if (entry.undoOf) {
      const chain = chainTo(entry, byRid);
      out.undoOf = entry.undoOf;
      out.undoes = chain.root.mode;
      out.redo = chain.hops % 2 === 0;
    }
    return out;
  });
  return listed.reverse();
}

/** The restore an undo chain started from (an undo of an undo of R → R, 2 hops). */
function chainTo(entry: LedgerRestore, byRid: Map<string, LedgerRestore>): { root: LedgerRestore; hops: number } {
  let root = entry;
  let hops = 0;
  for (
    let up = root.undoOf ? byRid.get(root.undoOf) : undefined;
    up;
    up = up.undoOf ? byRid.get(up.undoOf) : undefined
  ) {
    root = up;
    hops++;
  }
  return { root, hops };
}

/**
 * The entry `undo` inverts: `rid`, or the newest entry (today's default; the newest is never undone). Throws
 * E_UNKNOWN_RESTORE, E_NOTHING_TO_UNDO (already undone), or E_UNDO_CONFLICT when a later entry that is not
 * undone touched the same files or the same session's messages — undoing under it would tear its work apart.
 */
/**
 * What a bare `undo` inverts: the newest entry (Ledger.newestRestore). It is never undone (an undo of it would be
 * newer) and nothing later can conflict with it, so nothing older need be read.
 */
export function newestToUndo(newest: LedgerRestore | null): LedgerRestore {
  if (!newest)
    throw new RetraceError('E_NOTHING_TO_UNDO', 'nothing to undo: no restore has been made in this workspace');
  return newest;
}

export function entryToUndo(ledger: LedgerEntry[], rid?: string): LedgerRestore {
  const history = restoreHistory(ledger);
  if (rid === undefined) return newestToUndo(history.at(-1)?.entry ?? null);
  const at = history.findIndex((h) => h.entry.rid === rid);
  if (at < 0) {
    if (ledger.some((e) => e.type === 'rollback' && e.rid === rid))
      throw new RetraceError('E_NOTHING_TO_UNDO', `restore ${rid} did not finish and was rolled back: nothing to undo`);
    throw new RetraceError('E_UNKNOWN_RESTORE', `no restore ${rid} in this workspace (see \`retrace restores\`)`);
  }
  const { entry, undone } = history[at]!;
  if (undone) {
    const by = history.find((h) => h.entry.undoOf === rid && !h.undone)?.entry.rid;
    throw new RetraceError(
      'E_NOTHING_TO_UNDO',
      `restore ${rid} is already undone${by ? ` (by ${by}; undo ${by} to re-apply it)` : ''}`,
    );
  }
  const conflicts = conflictsOf(history, at);
  if (conflicts.length > 0) {
    const named = conflicts.map((c) => `${c.later.rid} (${describeMode(c.later)}: ${c.overlap.join(', ')})`);
    throw new RetraceError(
      'E_UNDO_CONFLICT',
      `cannot undo ${rid}: a later restore that is not undone changed the same ${conflicts.length === 1 ? 'thing' : 'things'}: ${named.join('; ')}. Undo ${conflicts.length === 1 ? 'it' : 'them'} first (newest first); nothing was changed`,
    );
  }
  return entry;
}

/**
 * The later entries still in effect that touched what entry `at` touched. Not in effect: an undone entry, and an
 * undo of an entry that is itself later than `at` (the two cancel out — this is also how a redo, an undo of an
 * undo, leaves the restore it re-applied free to be undone again).
 */
function conflictsOf(history: HistoryEntry[], at: number): { later: LedgerRestore; overlap: string[] }[] {
  const mine = history[at]!;
  const laterRids = new Set(history.slice(at + 1).map((h) => h.entry.rid));
  return history
    .slice(at + 1)
    .filter((h) => !h.undone && !(h.entry.undoOf && laterRids.has(h.entry.undoOf)))
    .map((h) => ({ later: h.entry, overlap: overlap(mine, h) }))
    .filter((c) => c.overlap.length > 0);
}

/**
 * For every entry, whether `entryToUndo` would accept it — the rule of conflictsOf, in one sweep from the newest
 * entry down (the panel asks for the whole ledger on every restore event; pairwise checks were O(n²)): the later
 * entries in effect are counted per file and per session as the sweep passes them, and an undo stops counting
 * once the sweep passes the entry it undid.
 */
function undoableFlags(history: HistoryEntry[]): boolean[] {
  const index = new Map(history.map((h, i) => [h.entry.rid, i]));
  const files = new Map<string, number>();
  const sessions = new Map<string, number>();
  const stopsCountingAt = new Map<number, HistoryEntry[]>();
  const count = (h: HistoryEntry, by: 1 | -1) => {
    for (const f of h.files) files.set(f, (files.get(f) ?? 0) + by);
    const c = h.entry.conversation;
    if (c) sessions.set(c.session, (sessions.get(c.session) ?? 0) + by);
  };
  const out = new Array<boolean>(history.length);
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i]!;
    const c = h.entry.conversation;
    out[i] =
      !h.undone && ![...h.files].some((f) => (files.get(f) ?? 0) > 0) && !(c && (sessions.get(c.session) ?? 0) > 0);
    for (const undo of stopsCountingAt.get(i) ?? []) count(undo, -1);
    if (!h.undone) {
      count(h, 1);
      const target = h.entry.undoOf !== undefined ? index.get(h.entry.undoOf) : undefined;
      if (target !== undefined) stopsCountingAt.set(target, [...(stopsCountingAt.get(target) ?? []), h]);
    }
  }
  return out;
}

/** The files (and `messages of session S`) both entries touched. */
function overlap(a: HistoryEntry, b: HistoryEntry): string[] {
  const [small, large] = a.files.size <= b.files.size ? [a.files, b.files] : [b.files, a.files];
  const shared = [...small].filter((p) => large.has(p)).sort();
  const ca = a.entry.conversation;
  const cb = b.entry.conversation;
  if (ca && cb && ca.session === cb.session) shared.push(`messages of session ${ca.session}`);
  return shared;
}

function describeMode(e: LedgerRestore): string {
  return e.undoOf ? `undo of ${e.undoOf}` : e.mode;
}

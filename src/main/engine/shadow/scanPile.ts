/**
 * What the last scan edit learned about its pile (scanEdit.ts), so the next one reads only what moved since.
 *
 * A scan edit leaves git's index as it was, so every later scan names the same paths again — the pile grows by
 * each checkpoint's edits until MAX_PATHS — and editing the index's tree at all of them re-read every file of the
 * pile and rewrote the trees above them each time (issue 15: 5 ms at 10 paths, 8 at 60, at 1,000 files). The
 * record keeps, per path the last edit captured, the path's stat data as seen before it was read (null: absent).
 * The next edit starts from the last snapshot's tree (which holds what was read then) and edits only the paths
 * whose stat data moved, or whose record is in doubt (a write in the same clock tick as the look: fileIdentity's
 * inDoubt), plus the paths that left the pile (back to what the index holds). The same rule git's index applies
 * to its own entries; scanEdit.test.ts holds the result to the plain path's tree.
 *
 * Only plain verdicts are kept: a file or symlink captured as a blob, or a path that was absent. A path left out
 * for a reason (too large, ignored, excluded, unreadable name) is listed to be judged again every time, so its
 * report (notCaptured) is too. The record holds for the tree it was made with (a warm snapshot that changes the
 * tree ends it: warmScope.ts) and the size cap it was judged by; every path of the edit's pile is in it, so a
 * path that leaves the pile is always edited back.
 */
import path from 'node:path';
import {
  inDoubt,
  loadStat,
  lstatIdentity,
  nowNs,
  recordedIdentity,
  sameStat,
  storeStat,
  type StatIdentity,
  type StoredStat,
} from './fileIdentity';
import { parentChecker } from './diskChecks';

/** One path as the last edit captured it: its stat data before the read (null: absent), and when that was taken. */
export interface PileEntry {
  stat: StatIdentity | null;
  seenAtNs: bigint;
}

export interface PileRecord {
  /** The snapshot tree the record describes (state.tree when it was written). */
  tree: string;
  sizeCap: number;
  /** Every path of the last edit's pile; null: judged again next time. */
  paths: Map<string, PileEntry | null>;
}

/** How a scan edit goes about its pile: from which tree, at which paths, keeping which records. */
export interface PilePlan {
  base: string;
  edit: string[];
  kept: Map<string, PileEntry>;
}

/**
 * The paths of `pile` to read again, from `lastTree`; null when the record does not hold (another tree, another
 * size cap, none): then the whole pile is edited from the index's tree, as before.
 */
export async function planPile(
  root: string,
  record: PileRecord | undefined,
  lastTree: string | null,
  sizeCap: number,
  pile: readonly string[],
): Promise<PilePlan | null> {
  if (!record || lastTree === null || record.tree !== lastTree || record.sizeCap !== sizeCap) return null;
  const parentOk = parentChecker(root);
  const kept = new Map<string, PileEntry>();
  const edit: string[] = [];
  for (const rel of pile) {
    const was = record.paths.get(rel);
    if (was && parentOk(rel) && (await unmoved(root, rel, was))) kept.set(rel, was);
    else edit.push(rel);
  }
  // Out of the pile: the disk holds what the index does again, which the last tree may not.
  const inPile = new Set(pile);
  for (const rel of record.paths.keys()) if (!inPile.has(rel)) edit.push(rel);
  return { base: lastTree, edit: edit.sort(), kept };
}

async function unmoved(root: string, rel: string, was: PileEntry): Promise<boolean> {
  const now = await lstatIdentity(path.join(root, rel));
  if (was.stat === null || now === null) return was.stat === null && now === null;
  return sameStat(was.stat, now) && !inDoubt(was.stat, was.seenAtNs);
}

/** Each path's stat data before an edit reads it (taken first: a change after the look shows at the next one). */
export async function lookBeforeEdit(
  root: string,
  paths: readonly string[],
): Promise<{ seenAtNs: bigint; stats: Map<string, StatIdentity | null> }> {
  const seenAtNs = nowNs();
  const stats = new Map<string, StatIdentity | null>();
  for (const rel of paths) stats.set(rel, await recordedIdentity(path.join(root, rel)));
  return { seenAtNs, stats };
}

/**
 * The record after an edit: the kept entries, and each edited path still in the pile whose verdict was plain
 * (`captured`: true for a blob, false for absent) with the stat data looked at before its read.
 */
export function nextRecord(
  tree: string,
  sizeCap: number,
  pile: readonly string[],
  kept: ReadonlyMap<string, PileEntry>,
  looked: { seenAtNs: bigint; stats: ReadonlyMap<string, StatIdentity | null> },
  captured: ReadonlyMap<string, boolean>,
): PileRecord {
  const paths = new Map<string, PileEntry | null>();
  for (const rel of pile) {
    const k = kept.get(rel);
    const stat = looked.stats.get(rel);
    const isBlob = captured.get(rel);
    if (k) paths.set(rel, k);
    // A look and a verdict that disagree on presence (it came or went in between) are judged again, too.
    else if (stat !== undefined && isBlob !== undefined && (stat !== null) === isBlob)
      paths.set(rel, { stat, seenAtNs: looked.seenAtNs });
    else paths.set(rel, null);
  }
  return { tree, sizeCap, paths };
}

type StoredEntry = [StoredStat | null, string];

/** As the scan state file keeps it (JSON: big integers as strings). */
export interface StoredPile {
  tree: string;
  sizeCap: number;
  paths: Record<string, StoredEntry | null>;
}

export function storePile(r: PileRecord): StoredPile {
  const paths: Record<string, StoredEntry | null> = {};
  for (const [rel, e] of r.paths) {
    if (!e) {
      paths[rel] = null;
      continue;
    }
    paths[rel] = [e.stat ? storeStat(e.stat) : null, `${e.seenAtNs}`];
  }
  return { tree: r.tree, sizeCap: r.sizeCap, paths };
}

/** The record back from the state file; undefined when it is missing or not as storePile writes it. */
export function loadPile(stored: unknown): PileRecord | undefined {
  try {
    const s = stored as StoredPile;
    if (typeof s?.tree !== 'string' || typeof s.sizeCap !== 'number' || typeof s.paths !== 'object') return undefined;
    const paths = new Map<string, PileEntry | null>();
    for (const [rel, entry] of Object.entries(s.paths)) {
      if (entry === null) {
        paths.set(rel, null);
        continue;
      }
      const [st, seen] = entry;
      const stat = st ? loadStat(st) : null;
      paths.set(rel, { stat, seenAtNs: BigInt(seen) });
    }
    return { tree: s.tree, sizeCap: s.sizeCap, paths };
  } catch {
    return undefined; // damaged: the next edit reads its whole pile, as without a record
  }
}

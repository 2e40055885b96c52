/**
 * The shadow index brought up to date with what a restore just wrote, while the restore's last sync runs
 * (issue 15): the next snapshot — an undo's safety checkpoint, the next hook — then finds those files unchanged
 * and writes no tree, where it would otherwise re-hash every file the restore rewrote (new inode, new times) and
 * write the index's tree again: two git processes, ~35 ms at 1,000 files and ~55 ms at 10,000.
 *
 * Exact by construction, never a guess: the files are staged by git from the disk as it is now (what the next
 * full scan's update-index would stage for a modified path), and the state file names the tree git writes from
 * that very index (warmScope.ts `recordRestoredIndex`). A file that changes after this differs from its index
 * entry in its stat data (inode, times, size), and git's racy-entry rule covers a change within the index's own
 * timestamp, so the next full scan still sees it. The warm path stays off until a full scan has run
 * (forceFullScan), as before.
 *
 * In an index of up to a few tens of thousands of files the restore's own files are not read and hashed again: their
 * entries are given the blob ids the restore wrote and the stat data they have now (indexEdit.ts), but only where
 * that stat data proves nothing wrote to them since. Right after its rename a file must still be the one written
 * (inode, size, mtime) with a ctime, the rename's, later than that mtime — so a write after the rename would have
 * moved the mtime, whatever the clock's grain — and now it must still be exactly so, ctime included (a write, chmod or
 * utimes since moves it). Anything
 * else — a path that does not prove it, a change of mode only, a file new to the index — and git stages them all
 * from the disk, as before. When the steps were every difference between the two trees and all went in as planned,
 * the index holds the restore's target tree, and no write-tree is needed to name it.
 *
 * Left to the next full scan, which judges them with the ignore rules and the size cap: paths the snapshot had
 * no entry for (a restored file that is new to the index), ignore-rule files (their change needs the sweep),
 * anything that is now neither a file nor a link nor absent, and case-insensitive folders (respelled names).
 * RETRACE_FAST_PATHS=0 turns it off with the other fast paths.
 */
import { lstatSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import type { GitRunner } from '../git/runner';
import { addToIndex, writeTree } from '../git/updateIndex';
import type { PlacedFile } from './apply';
import { editIndex } from './indexEdit';
import { indexMode, statFields, syncIndexFile, type IndexEntry } from './indexFile';
import type { RestoreStep } from './restore';
import { step } from '../stepTrace';
import { checkScan, isRuleFile, recordRestoredIndex, type ScanCheck } from './warmScope';

export interface StageRestoredInput {
  git: GitRunner;
  root: string;
  /** The safety snapshot's tree: the index must still hold exactly it (the state file says so). */
  fromTree: string;
  /**
   * The tree the restore goes to, when its steps are every path where it differs from fromTree (a whole restore, no
   * path skipped): an index given exactly those steps holds this tree, and no write-tree is needed to know it.
   */
  wholeTo?: string;
  steps: readonly RestoreStep[];
  /** Sizes of the blobs the restore wrote: one over the cap is left to the full scan (which leaves it out). */
  blobSizes: ReadonlyMap<string, number>;
  sizeCap: number;
  caseInsensitive: boolean;
  /** What the restore wrote and put in place (ApplyOptions.placed), filled by the time this runs. */
  placed?: ReadonlyMap<string, PlacedFile>;
}

/**
 * True when the index and the state file now describe the restored folder; false when it is left to the next full
 * scan. Never throws.
 */
export async function stageRestored(input: StageRestoredInput): Promise<boolean> {
  try {
    const ready = await prepare(input);
    if (!ready) return false;
    const { paths, check, edited, tree: known } = ready;
    // An index written here is made durable while git writes the tree from it (git then writes its own).
    const synced = edited ? syncIndexFile(path.join(input.git.gitDir, 'index')) : null;
    if (!edited) await step('stage.add', () => addToIndex(input.git, paths));
    const [tree] = await Promise.all([known ?? step('stage.tree', () => writeTree(input.git)), synced]);
    return await recordRestoredIndex(input.git.gitDir, check, tree);
  } catch {
    return false;
  }
}

interface Prepared {
  paths: string[];
  check: ScanCheck;
  /** The index holds the restored paths already (indexEdit.ts). */
  edited: boolean;
  /** The index's tree, when known without write-tree. */
  tree: string | null;
}

async function prepare(input: StageRestoredInput): Promise<Prepared | null> {
  const stageable = stageablePaths(input);
  if (!stageable) return null;
  const paths = [...stageable.keys()];
  const check = await checkScan(input.git.gitDir);
  if (!check.settled || check.state?.indexTree !== input.fromTree) return null;
  const edits = input.placed && writtenEntries(stageable, input.placed);
  if (!edits) return { paths, check, edited: false, tree: null };
  // This runs beside the restore's settle (apply.ts), whose checks are quick work on this thread and whose drops
  // and sync are waits on the disk: the index is rewritten (work on this thread too) once those waits have begun.
  await new Promise((resolve) => setImmediate(resolve));
  const edited = await step('stage.index', () => editIndex(input.git, edits));
  const tree = edited && input.wholeTo && asPlanned(input.steps, edits) ? input.wholeTo : null;
  return { paths, check, edited, tree };
}

/** Every step went into the index as planned: each write with its blob and mode, each deletion removed. */
function asPlanned(steps: readonly RestoreStep[], edits: ReadonlyMap<string, IndexEntry | null>): boolean {
  if (edits.size !== steps.length) return false;
  return steps.every((s) => {
    const e = edits.get(s.path);
    if (e === undefined) return false;
    if (s.action === 'delete') return e === null;
    return e !== null && e.oid === s.blob && e.mode === parseInt(s.mode ?? '', 8);
  });
}

/**
 * The restored paths the index already tracks, sorted, with what lstat sees there now (null: absent); null when the
 * restore is one to leave to a full scan.
 */
function stageablePaths(input: StageRestoredInput): Map<string, BigIntStats | null> | null {
  if (input.caseInsensitive || input.steps.length === 0 || process.env.RETRACE_FAST_PATHS === '0') return null;
  const paths: [string, BigIntStats | null][] = [];
  for (const s of input.steps) {
    if (isRuleFile(s.path)) return null;
    if (s.blob && (input.blobSizes.get(s.blob) ?? Infinity) > input.sizeCap) return null;
    if (s.was === undefined) continue; // new to the index: the full scan judges it with the rules
    const st = onDisk(path.join(input.root, s.path));
    if (st === 'other') return null;
    paths.push([s.path, st]);
  }
  return paths.length > 0 ? new Map(paths.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : null;
}

/**
 * The index entries of the stageable paths from what the restore wrote (null: removed), each proven unchanged since
 * it was written by what lstat saw there; null when one is not (the caller has git stage them all from the disk).
 */
function writtenEntries(
  onDiskNow: ReadonlyMap<string, BigIntStats | null>,
  placed: ReadonlyMap<string, PlacedFile>,
): Map<string, IndexEntry | null> | null {
  const edits = new Map<string, IndexEntry | null>();
  for (const [rel, st] of onDiskNow) {
    if (st === null) {
      edits.set(rel, null);
      continue;
    }
    const p = placed.get(rel);
    const mode = indexMode(st);
    if (!p || mode !== parseInt(p.mode, 8) || !unchangedSinceWritten(st, p)) return null;
    edits.set(rel, { path: rel, mode, oid: p.blob, stat: statFields(st) });
  }
  return edits;
}

/**
 * The file is the one the restore wrote, with nothing written to it since: right after the rename it was the same
 * file, size and mtime as written, its ctime (the rename's) later than that mtime, and it still is exactly that
 * now, ctime included (a later write, chmod or utimes moves the ctime).
 */
function unchangedSinceWritten(now: BigIntStats, { written, placed }: PlacedFile): boolean {
  const same = (a: BigIntStats, b: BigIntStats): boolean =>
    a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeNs === b.mtimeNs;
  return (
    same(placed, written) && placed.ctimeNs > written.mtimeNs && same(now, placed) && now.ctimeNs === placed.ctimeNs
  );
}

/** What lstat sees at `abs`: a file or symlink, null when absent, 'other' for anything else (or no answer). */
function onDisk(abs: string): BigIntStats | null | 'other' {
  try {
    const st = lstatSync(abs, { bigint: true });
    return st.isFile() || st.isSymbolicLink() ? st : 'other';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? null : 'other';
  }
}

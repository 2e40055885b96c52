/**
 * When a snapshot may be warm (engineer E; hooked into snapshot.ts).
 *
 * A cold snapshot asks git to compare the whole index with the disk and walk every folder for new files
 * (`ls-files --modified --deleted --others`): at 100k files that stat walk is most of a checkpoint. When the
 * caller already knows which paths changed — a hook's tool input (Edit/Write name their file), the app's file
 * watcher — the snapshot is the last snapshot's tree with just those paths brought up to date (treeEdit.ts),
 * each judged as a full scan would judge it (lstat and bytes, the exclusions and ignore rules for new files),
 * so a hint that names an unchanged file changes nothing, and one that names an ignored file captures nothing.
 *
 * What a hint cannot see (a file changed at the same time by someone else) is caught by a full scan, which
 * runs instead of the warm one when any of these holds:
 *  - no hints were given (Bash tools, `retrace checkpoint`, restores' safety checkpoints, diffs to "working");
 *  - the state is not settled (below), or a hint names an ignore file;
 *  - a hint is not a plain workspace-relative path, or there are more than MAX_HINTS of them;
 *  - WARM_MAX_STREAK warm snapshots ran since the last full one, or it started more than WARM_MAX_AGE_MS ago;
 *  - something wrote into the folder since (a restore: forceFullScan).
 * So a checkpoint is never more than WARM_MAX_STREAK hook calls or a minute behind an unhinted change, and a
 * restore never loses one: its safety checkpoint is always a full scan.
 *
 * "Settled": the shadow's exclude file (defaults + .retraceignore) and its index are byte for byte what the
 * last completed snapshot left (<gitDir>/retrace-scan.json records both). Then that snapshot's ignore sweep
 * still holds and need not be redone — which also spares a new process (every CLI and hook call) the sweep
 * over the whole index that its first snapshot would otherwise run. Anything else that touched the index
 * (a snapshot killed midway, a repair) or the rules makes the next snapshot a full one with the sweep.
 * Warm snapshots leave the index alone, so the state records two trees: the last snapshot's (the base of the
 * next warm one) and the one the index holds (what a full scan that stages nothing writes).
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { hasGitSegment } from '../excludes';
import { writeFilePrivateSync } from '../privateFs';
import type { StoredPile } from './scanPile';

export const WARM_MAX_STREAK = 20;
export const WARM_MAX_AGE_MS = 60_000;
export const MAX_HINTS = 256;
/**
 * A long-lived host (the hook server) refreshes the warm base in the background well before the limits above
 * force a full scan into a hook call (backgroundScan.ts): after this many warm snapshots, or this long.
 */
export const REFRESH_STREAK = WARM_MAX_STREAK / 2;
export const REFRESH_AGE_MS = WARM_MAX_AGE_MS / 2;
const STATE_FILE = 'retrace-scan.json';
const RULE_FILES = new Set(['.gitignore', '.retraceignore', '.gitmodules']);

interface ScanState {
  /** When the last full scan started (ms since the epoch). */
  lastFullAt: number;
  /** Warm snapshots since then. */
  warmSinceFull: number;
  /** sha1 of <gitDir>/info/exclude as the last snapshot ran. */
  excludes: string;
  /** The index's own trailing checksum as the last snapshot left it. */
  index: string;
  /** The tree of the last snapshot. */
  tree: string;
  /** The tree the index holds: `tree` after a full scan, older after warm ones (state files of 0.1 lack it). */
  indexTree?: string;
  /** What the last scan edit captured of the paths that differ from the index (scanPile.ts); checked where used. */
  pile?: StoredPile;
}

/** What a snapshot learns about the last one before it starts (read once, before it changes the index). */
export interface ScanCheck {
  state: ScanState | null;
  settled: boolean;
}

// The state's small files are read and written in plain system calls: a hook call looks at them each time, and
// on a loaded machine every thread-pool round trip waits its turn.
function excludesHash(gitDir: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(gitDir, 'info', 'exclude'));
  } catch {
    bytes = Buffer.alloc(0);
  }
  return Promise.resolve(createHash('sha1').update(bytes).digest('hex'));
}

/** The last 20 bytes of the index (git's checksum of it), or '' when there is no index. */
function indexChecksum(gitDir: string, indexFile?: string): Promise<string> {
  let fd: number;
  try {
    fd = openSync(indexFile ?? path.join(gitDir, 'index'), 'r');
  } catch {
    return Promise.resolve('');
  }
  try {
    const { size } = fstatSync(fd);
    if (size < 32) return Promise.resolve('');
    const tail = Buffer.alloc(20);
    readSync(fd, tail, 0, 20, size - 20);
    return Promise.resolve(tail.toString('hex'));
  } finally {
    closeSync(fd);
  }
}

/** The state file's text, as it is now (null: none): what a background scan compares before adopting its tree. */
export function readStateText(gitDir: string): Promise<string | null> {
  try {
    return Promise.resolve(readFileSync(path.join(gitDir, STATE_FILE), 'utf8'));
  } catch {
    return Promise.resolve(null);
  }
}

async function readState(gitDir: string): Promise<ScanState | null> {
  try {
    const s = JSON.parse((await readStateText(gitDir)) ?? '') as Partial<ScanState>;
    const ok =
      typeof s.lastFullAt === 'number' &&
      typeof s.warmSinceFull === 'number' &&
      typeof s.excludes === 'string' &&
      typeof s.index === 'string' &&
      typeof s.tree === 'string' &&
      (s.indexTree === undefined || typeof s.indexTree === 'string');
    return ok ? (s as ScanState) : null;
  } catch {
    return null; // missing or damaged: the next snapshot is a full one
  }
}

/** `indexFile`: a reader's private copy of the index (settled when the copy is the index the state describes). */
export async function checkScan(gitDir: string, indexFile?: string): Promise<ScanCheck> {
  const state = await readState(gitDir);
  if (!state || state.index === '') return { state, settled: false };
  const [excludes, index] = await Promise.all([excludesHash(gitDir), indexChecksum(gitDir, indexFile)]);
  return { state, settled: excludes === state.excludes && index === state.index };
}

function isPlainRelative(p: string): boolean {
  if (p === '' || /\p{Cs}/u.test(p) || p.startsWith('/') || p.includes('\\') || p.includes('\0')) return false;
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/**
 * The paths this snapshot may limit itself to, or null for a full scan. `[]` is a valid answer: the caller
 * says nothing changed, and git is not asked at all.
 */
export function warmScope(
  check: ScanCheck,
  hintPaths: readonly string[] | undefined,
  now: number = Date.now(),
): string[] | null {
  if (!hintPaths || process.env.RETRACE_FAST_PATHS === '0') return null;
  const { state, settled } = check;
  if (!settled || !state || state.warmSinceFull >= WARM_MAX_STREAK || now - state.lastFullAt > WARM_MAX_AGE_MS)
    return null;
  if (hintPaths.length > MAX_HINTS) return null;
  if (!hintPaths.every(warmHintOk)) return null;
  return [...new Set(hintPaths)].sort();
}

/** A file whose change changes what the ignore rules say (its change needs a full scan and its sweep). */
export function isRuleFile(p: string): boolean {
  return RULE_FILES.has(p.slice(p.lastIndexOf('/') + 1));
}

/** A path a warm snapshot may judge alone: plain, outside any .git, not an ignore-rules file. */
export function warmHintOk(p: string): boolean {
  return isPlainRelative(p) && !hasGitSegment(p) && !isRuleFile(p);
}

/** The last snapshot's tree, when the state is settled: the base of a warm snapshot. */
export function lastTree(check: ScanCheck): string | null {
  return check.settled && check.state ? check.state.tree : null;
}

/**
 * The tree of the index when nothing was staged since the last completed snapshot and its index is untouched
 * (settled): the same index writes the same tree, so `write-tree` need not run again.
 */
export function unchangedTree(check: ScanCheck): string | null {
  return check.settled && check.state ? (check.state.indexTree ?? check.state.tree) : null;
}

/**
 * Record a completed snapshot: call after its tree is written. `warm`: built by treeEdit.ts from the last
 * tree, the index untouched. `started` 0: a full scan, with the next one forced (forceFullScan).
 */
export async function recordScan(
  gitDir: string,
  check: ScanCheck,
  warm: boolean,
  started: number,
  tree: string,
): Promise<void> {
  // A warm snapshot ran on a settled state and left the index alone, under the lock that keeps everyone else from
  // the rules and the index: both are still what checkScan just read (no second read and hash per hook call).
  const [excludes, index] =
    warm && check.settled && check.state
      ? [check.state.excludes, check.state.index]
      : await Promise.all([excludesHash(gitDir), indexChecksum(gitDir)]);
  const next: ScanState =
    warm && check.state
      ? {
          ...check.state,
          warmSinceFull: check.state.warmSinceFull + 1,
          excludes,
          index,
          tree,
          indexTree: check.state.indexTree ?? check.state.tree,
          // The pile record describes one tree (scanPile.ts): a warm edit that changed it ends the record.
          pile: tree === check.state.tree ? check.state.pile : undefined,
        }
      : { lastFullAt: started, warmSinceFull: 0, excludes, index, tree, indexTree: tree };
  await writeState(gitDir, next);
}

/**
 * Record a full scan whose tree was edited from the index's (scanEdit.ts): a full scan as of `started`, with the
 * index, and so the tree it holds, left as they were (the caller held the lock on a settled state), and what it
 * learned of the paths that differ from the index (`pile`).
 */
export async function recordScanEdit(
  gitDir: string,
  check: ScanCheck,
  started: number,
  tree: string,
  pile: StoredPile,
): Promise<void> {
  if (check.state) await writeFullScanBase(gitDir, check.state, started, tree, pile);
}

/** `tree` as the base of the next warm snapshot, as if a full scan began at `started`; the index is left as it was. */
function writeFullScanBase(
  gitDir: string,
  state: ScanState,
  started: number,
  tree: string,
  pile: StoredPile | undefined,
): Promise<void> {
  return writeState(gitDir, {
    ...state,
    lastFullAt: started,
    warmSinceFull: 0,
    tree,
    indexTree: state.indexTree ?? state.tree,
    pile,
  });
}

/**
 * Record the index a restore staged its files into (stageRestored.ts): it holds `tree`, so a full scan that stages
 * nothing needs no write-tree. The rules are those `before` was settled on (the restore writes no rule file, and
 * the caller holds the writer lock); the full scan stays forced (lastFullAt 0), so the warm path waits for it.
 */
export async function recordRestoredIndex(gitDir: string, before: ScanCheck, tree: string): Promise<boolean> {
  if (!before.settled || !before.state) return false;
  await writeState(gitDir, {
    ...before.state,
    lastFullAt: 0,
    warmSinceFull: 0,
    index: await indexChecksum(gitDir),
    tree,
    indexTree: tree,
    pile: undefined,
  });
  return true;
}

/**
 * Whether a background full scan should refresh the warm base now: the state is settled, was not forced to a
 * full scan (a restore wrote into the folder: the next call's own full scan must see what it wrote, and a scan
 * running alongside it could adopt half of it), and the warm limits are half used.
 */
export function refreshDue(check: ScanCheck, now: number = Date.now()): boolean {
  const s = check.state;
  if (!check.settled || !s || s.lastFullAt === 0 || process.env.RETRACE_FAST_PATHS === '0') return false;
  return s.warmSinceFull >= REFRESH_STREAK || now - s.lastFullAt >= REFRESH_AGE_MS;
}

/**
 * Adopt a background full scan's tree (begun at `started`, into a private index) as the base of the next warm
 * snapshot, as if a full scan had run then — only when the state file still reads `before`, i.e. nothing was
 * recorded, forced or repaired since the scan began, and the rules and the index are as the state describes.
 * The shared index is left alone (it still holds `indexTree`). The caller holds the writer lock.
 */
export async function adoptFullScan(gitDir: string, before: string, started: number, tree: string): Promise<boolean> {
  if ((await readStateText(gitDir)) !== before) return false;
  const check = await checkScan(gitDir);
  if (!check.settled || !check.state || check.state.lastFullAt === 0) return false;
  await writeFullScanBase(gitDir, check.state, started, tree, undefined);
  return true;
}

/**
 * Something other than a snapshot is about to write into the folder (a restore, its rollback): the next
 * snapshot must look at the whole folder. Kept otherwise, so the index stays "settled" and needs no sweep.
 */
export async function forceFullScan(gitDir: string): Promise<void> {
  const state = await readState(gitDir);
  if (state && state.lastFullAt !== 0) await writeState(gitDir, { ...state, lastFullAt: 0 });
}

/** The trees the state names (the last snapshot's, the index's): what the next snapshot may build on. */
export async function scanStateTrees(gitDir: string): Promise<string[]> {
  const s = await readState(gitDir);
  return s ? [...new Set([s.tree, s.indexTree ?? s.tree])] : [];
}

/** No state at all: the next snapshot is a full one with the sweep, and trusts no tree the state named. */
export function forgetScanState(gitDir: string): void {
  rmSync(path.join(gitDir, STATE_FILE), { force: true });
}

function writeState(gitDir: string, state: ScanState): Promise<void> {
  const file = path.join(gitDir, STATE_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFilePrivateSync(tmp, JSON.stringify(state));
  renameSync(tmp, file);
  return Promise.resolve();
}

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
 * Left to the next full scan, which judges them with the ignore rules and the size cap: paths the snapshot had
 * no entry for (a restored file that is new to the index), ignore-rule files (their change needs the sweep),
 * anything that is now neither a file nor a link nor absent, and case-insensitive folders (respelled names).
 * RETRACE_FAST_PATHS=0 turns it off with the other fast paths.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { GitRunner } from '../git/runner';
import { addToIndex, writeTree } from '../git/updateIndex';
import type { RestoreStep } from './restore';
import { step } from '../stepTrace';
import { checkScan, isRuleFile, recordRestoredIndex } from './warmScope';

export interface StageRestoredInput {
  git: GitRunner;
  root: string;
  /** The safety snapshot's tree: the index must still hold exactly it (the state file says so). */
  fromTree: string;
  steps: readonly RestoreStep[];
  /** Sizes of the blobs the restore wrote: one over the cap is left to the full scan (which leaves it out). */
  blobSizes: ReadonlyMap<string, number>;
  sizeCap: number;
  caseInsensitive: boolean;
}

/** True when the index and the state file now describe the restored folder; false when nothing was staged. */
export async function stageRestored(input: StageRestoredInput): Promise<boolean> {
  const paths = stageablePaths(input);
  if (!paths) return false;
  const check = await checkScan(input.git.gitDir);
  if (!check.settled || check.state?.indexTree !== input.fromTree) return false;
  await step('stage.add', () => addToIndex(input.git, paths));
  const tree = await step('stage.tree', () => writeTree(input.git));
  return recordRestoredIndex(input.git.gitDir, check, tree);
}

/** The restored paths the index already tracks, sorted; null when the restore is one to leave to a full scan. */
function stageablePaths(input: StageRestoredInput): string[] | null {
  if (input.caseInsensitive || input.steps.length === 0 || process.env.RETRACE_FAST_PATHS === '0') return null;
  const paths: string[] = [];
  for (const s of input.steps) {
    if (isRuleFile(s.path)) return null;
    if (s.blob && (input.blobSizes.get(s.blob) ?? Infinity) > input.sizeCap) return null;
    if (s.was === undefined) continue; // new to the index: the full scan judges it with the rules
    const kind = kindOnDisk(path.join(input.root, s.path));
    if (kind === 'other') return null;
    paths.push(s.path);
  }
  return paths.length > 0 ? paths.sort() : null;
}

function kindOnDisk(abs: string): 'entry' | 'absent' | 'other' {
  try {
    const st = lstatSync(abs);
    return st.isFile() || st.isSymbolicLink() ? 'entry' : 'other';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : 'other';
  }
}

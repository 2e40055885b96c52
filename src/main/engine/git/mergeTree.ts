/**
 * A three-way merge of whole trees by git itself (`git merge-tree --write-tree`, git 2.38+): renames, added
 * and deleted files, binaries and symlinks are git's business, and a conflicted file comes back with git's own
 * markers in the result tree. git 2.39 takes two commits and finds their merge base, so the three trees are
 * wrapped in throwaway commits (ours and theirs both children of base); nothing refers to them, and gc drops
 * them after its grace period like any other unreferenced object.
 */
import { RetraceError } from '../../../shared/errors';
import { readBlobs } from './catFile';
import { commitTree } from './commitTree';
import { lsTree } from './lsTree';
import type { GitRunner } from './runner';

export interface MergeConflict {
  path: string;
  /** Conflicted regions git marked in the file; 1 for a conflict that is not about lines (binary, delete). */
  hunks: number;
}

export interface TreeMerge {
  /** The merged tree; conflicted files hold git's conflict markers (or, when they cannot, "ours"). */
  tree: string;
  conflicts: MergeConflict[];
}

const MIN_VERSION = [2, 38];

/** Merge: what changed from `base` to `theirs`, applied onto `ours`. */
export async function mergeTrees(
  git: GitRunner,
  version: string,
  trees: { base: string; ours: string; theirs: string },
): Promise<TreeMerge> {
  assertMergeTreeSupported(version);
  const base = await commitTree(git, trees.base, null, 'retrace: merge base');
  const ours = await commitTree(git, trees.ours, base, 'retrace: the files now');
  const theirs = await commitTree(git, trees.theirs, base, 'retrace: the change taken back');
  const { stdout, exitCode } = await git.exec(['merge-tree', '--write-tree', '-z', '--no-messages', ours, theirs], {
    okExitCodes: [0, 1],
    withoutIndex: true,
  });
  const tokens = stdout.toString('utf8').split('\0');
  const tree = tokens[0]!.trim();
  if (exitCode === 0) return { tree, conflicts: [] };
  // Conflicted file info: "<mode> <object> <stage>\t<path>" records until an empty one.
  const paths: string[] = [];
  for (let i = 1; i < tokens.length && tokens[i] !== ''; i++) {
    const rec = tokens[i]!;
    const p = rec.slice(rec.indexOf('\t') + 1);
    if (!paths.includes(p)) paths.push(p);
  }
  return { tree, conflicts: await countHunks(git, tree, paths, ours) };
}

/** Marker lines git wrote into each conflicted file of the result (its "ours" label is the commit's id). */
async function countHunks(git: GitRunner, tree: string, paths: string[], oursLabel: string): Promise<MergeConflict[]> {
  const entries = await lsTree(git, tree, { paths });
  const ids = new Map(entries.filter((e) => e.type === 'blob').map((e) => [e.path, e.id]));
  const blobs = await readBlobs(git, [...ids.values()]);
  const marker = `<<<<<<< ${oursLabel}`;
  return paths.map((p) => {
    const bytes = ids.has(p) ? blobs.get(ids.get(p)!) : undefined;
    const lines = bytes ? bytes.toString('utf8').split('\n') : [];
    const hunks = lines.filter((l) => l.startsWith(marker)).length;
    return { path: p, hunks: Math.max(1, hunks) };
  });
}

function assertMergeTreeSupported(version: string): void {
  const [major = 0, minor = 0] = version.split('.').map((n) => Number.parseInt(n, 10));
  if (major > MIN_VERSION[0]! || (major === MIN_VERSION[0] && minor >= MIN_VERSION[1]!)) return;
  throw new RetraceError(
    'E_UNSUPPORTED',
    `reverting a step needs git ${MIN_VERSION.join('.')} or newer (git merge-tree --write-tree); this is git ${version}`,
  );
}

/**
 * A tree with some paths set to other entries (or removed), built by git's index machinery in a throwaway
 * index file: read-tree, update-index --index-info, write-tree. For the trees a revert limited to some files,
 * or a hunk restore, hands to the restore transaction.
 */
import type { GitRunner } from './runner';
import { writeTree } from './updateIndex';

export type TreeEdit = { path: string; mode: string; id: string } | { path: string; remove: true };

const ZERO_ID = '0'.repeat(40);

/** `git` must stage into an index file of its own (GitRunner.withIndexFile): its content is replaced. */
export async function replaceInTree(git: GitRunner, tree: string, edits: readonly TreeEdit[]): Promise<string> {
  await git.exec(['read-tree', tree]);
  if (edits.length > 0) {
    // --index-info: "<mode> <id>\t<path>"; mode 0 removes the path.
    const info = edits.map((e) => ('remove' in e ? `0 ${ZERO_ID}\t${e.path}\0` : `${e.mode} ${e.id}\t${e.path}\0`));
    await git.exec(['update-index', '-z', '--index-info'], { stdin: Buffer.from(info.join(''), 'utf8') });
  }
  return writeTree(git);
}

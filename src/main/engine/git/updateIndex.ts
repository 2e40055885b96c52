import type { GitRunner } from './runner';

const nulList = (paths: readonly string[]): Buffer => Buffer.from(paths.map((p) => p + '\0').join(''), 'utf8');

/**
 * Hash and stage files and symlinks as they are on disk (git writes the blobs and records stat data, so the
 * next `ls-files --modified` only reports what really changed). A path that vanished meanwhile is dropped.
 * Plumbing, so an embedded repository's files go in like any others and its .git is never looked at.
 */
export async function addToIndex(git: GitRunner, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  await git.exec(['update-index', '-z', '--add', '--remove', '--replace', '--stdin'], { stdin: nulList(paths) });
}

/** Drop entries from the index whatever is on disk now (deleted, now ignored, now too large, now a directory). */
export async function removeFromIndex(git: GitRunner, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  await git.exec(['update-index', '-z', '--force-remove', '--stdin'], { stdin: nulList(paths) });
}

/** The index's tree. Through exec, not simple-git: a checkpoint runs it every time, and exec costs Node less. */
export async function writeTree(git: GitRunner): Promise<string> {
  return (await git.exec(['write-tree'])).stdout.toString('utf8').trim();
}

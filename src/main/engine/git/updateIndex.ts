import { rmSync } from 'node:fs';
import { diedOfSigbus, GitError } from './errors';
import type { GitRunner } from './runner';

const nulList = (paths: readonly string[]): Buffer => Buffer.from(paths.map((p) => p + '\0').join(''), 'utf8');

/**
 * Hash and stage files and symlinks as they are on disk (git writes the blobs and records stat data, so the
 * next `ls-files --modified` only reports what really changed). A path that vanished meanwhile is dropped.
 * Plumbing, so an embedded repository's files go in like any others and its .git is never looked at.
 */
export async function addToIndex(git: GitRunner, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  for (let attempt = 1; ; attempt++) {
    try {
      await git.exec(['update-index', '-z', '--add', '--remove', '--replace', '--stdin'], { stdin: nulList(paths) });
      return;
    } catch (e) {
      // Deleted or cut short between git's lstat and its read (an agent's churn): update-index stops before it
      // writes the index, and run again it finds the file gone (--remove drops its entry), back, or whole.
      if (!(e instanceof GitError && e.kind === 'churned') || attempt >= CHURN_TRIES) throw e;
      // Killed by the signal, it left its index.lock: ours to remove (the caller holds the workspace's writer lock,
      // and this git has exited).
      if (diedOfSigbus(e)) rmSync(`${git.indexPath()}.lock`, { force: true });
    }
  }
}

/** Runs of one update-index when files churn under it: each race is a window of microseconds. */
const CHURN_TRIES = 4;

/** Drop entries from the index whatever is on disk now (deleted, now ignored, now too large, now a directory). */
export async function removeFromIndex(git: GitRunner, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  await git.exec(['update-index', '-z', '--force-remove', '--stdin'], { stdin: nulList(paths) });
}

/** The index's tree. Through exec, not simple-git: a checkpoint runs it every time, and exec costs Node less. */
export async function writeTree(git: GitRunner): Promise<string> {
  return (await git.exec(['write-tree'])).stdout.toString('utf8').trim();
}

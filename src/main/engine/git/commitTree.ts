import type { GitRunner } from './runner';

/** A commit with Retrace's fixed identity (set by -c user.*); the message goes in on stdin so it may be anything. */
export async function commitTree(
  git: GitRunner,
  tree: string,
  parent: string | null,
  message: string,
): Promise<string> {
  const args = ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'];
  const { stdout } = await git.exec(args, { stdin: Buffer.from(message, 'utf8') });
  return stdout.toString('utf8').trim();
}

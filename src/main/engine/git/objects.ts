import type { GitRunner } from './runner';

export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

/** The type of an object, or null when there is no such object. */
export async function objectType(git: GitRunner, id: string): Promise<ObjectType | null> {
  const { stdout, exitCode } = await git.exec(['cat-file', '-t', id], { okExitCodes: [0, 1, 128] });
  if (exitCode !== 0) return null;
  return stdout.toString('utf8').trim() as ObjectType;
}

/** `<id>^{tree}` for a commit or a tree; null when it is neither. */
export async function peelToTree(git: GitRunner, id: string): Promise<string | null> {
  const { stdout, exitCode } = await git.exec(['rev-parse', '--verify', '--quiet', `${id}^{tree}`], {
    okExitCodes: [0, 1],
  });
  return exitCode === 0 ? stdout.toString('utf8').trim() : null;
}

export async function parentOf(git: GitRunner, commit: string): Promise<string | null> {
  const { stdout, exitCode } = await git.exec(['rev-parse', '--verify', '--quiet', `${commit}^1`], {
    okExitCodes: [0, 1],
  });
  return exitCode === 0 ? stdout.toString('utf8').trim() : null;
}

/** Every commit reachable from refs under prefix (e.g. refs/retrace/). */
export async function reachableCommits(git: GitRunner, prefix: string): Promise<string[]> {
  const out = await git.raw(['rev-list', `--glob=${prefix.replace(/\/?$/, '/')}*`]);
  return out.split('\n').filter((l) => l.length === 40);
}

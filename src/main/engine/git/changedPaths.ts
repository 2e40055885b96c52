import type { GitRunner } from './runner';

/**
 * The paths each commit changed against its first parent (a root commit: against nothing), for many commits in
 * one git process: `diff-tree --stdin` reads the ids and answers each in turn. Renames show as the old path and
 * the new one. Reads objects only, so it needs no index.
 */
export async function changedPathsOfCommits(
  git: GitRunner,
  commits: readonly string[],
): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  if (commits.length === 0) return result;
  const { stdout } = await git.exec(
    ['diff-tree', '--stdin', '-r', '-z', '--name-only', '--no-renames', '--root', '--always'],
    { stdin: commits.join('\n') + '\n', withoutIndex: true },
  );
  // -z output: "<commit>\0<path>\0<path>\0<next commit>\0…", one group per input line, in order (--always
  // prints a group even for a commit that changed nothing).
  const tokens = stdout.toString('utf8').split('\0');
  let k = -1;
  let current: string[] = [];
  for (const t of tokens) {
    if (t === '') continue;
    if (t === commits[k + 1]) {
      k++;
      current = [];
      result.set(t, current);
    } else if (k >= 0) current.push(t);
  }
  return result;
}

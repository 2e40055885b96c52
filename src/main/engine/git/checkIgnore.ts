import type { GitRunner } from './runner';

/**
 * Which of these paths the folder's ignore rules exclude, without consulting the index (used for files git's
 * own walk did not enter, i.e. inside nested repositories). Directories may be given with a trailing '/'.
 */
export async function ignoredAmong(git: GitRunner, paths: readonly string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  // check-ignore refuses --literal-pathspecs; a leading ':' would read as pathspec magic, './' defuses it.
  const stdin = Buffer.from(paths.map((p) => (p.startsWith(':') ? './' : '') + p + '\0').join(''), 'utf8');
  // exit 1 = none of them is ignored
  const { stdout } = await git.exec(['check-ignore', '--no-index', '-z', '--stdin'], {
    stdin,
    okExitCodes: [0, 1],
    literalPathspecs: false,
  });
  return new Set(
    stdout
      .toString('utf8')
      .split('\0')
      .filter((p) => p !== ''),
  );
}

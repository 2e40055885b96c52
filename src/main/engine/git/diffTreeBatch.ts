/**
 * The file lists of many tree pairs from one `git diff-tree --stdin` process (issue 15: an import of 2,000
 * checkpoints spent one diff-tree process on each). git itself counts every pair, with the options of
 * diffTreeFiles (renames, numstat), so each answer is the one a lone `diffTreeFiles` call gives.
 *
 * git echoes each input pair ("A B\n") before that pair's -z records, an empty diff included: the output is cut
 * at those echoes, which are known exactly in advance.
 */
import { RetraceError } from '../../../shared/errors';
import type { FileChange } from '../../../shared/model';
import { FILES_ARGS, parseFiles } from './diffTree';
import type { GitRunner } from './runner';

/** Each pair's file list, in order; identical trees are answered without asking git. */
export async function diffTreeFilesMany(
  git: GitRunner,
  pairs: readonly (readonly [from: string, to: string])[],
): Promise<FileChange[][]> {
  const asked = pairs.filter(([a, b]) => a !== b);
  const answers = new Map<string, FileChange[]>();
  if (asked.length > 0) {
    const headers = asked.map(([a, b]) => `${a} ${b}\n`);
    const { stdout } = await git.exec(['diff-tree', '--stdin', ...FILES_ARGS], {
      stdin: headers.join(''),
      withoutIndex: true, // it reads only objects (see diffTree.ts treeOnly)
    });
    const out = stdout.toString('utf8');
    let at = 0;
    for (const [i, header] of headers.entries()) {
      if (!out.startsWith(header, at))
        throw new RetraceError('E_GIT', `diff-tree --stdin: expected the echo of ${header.trim()} at byte ${at}`);
      const start = at + header.length;
      const next = headers[i + 1];
      // The next pair's echo starts a record (after a NUL, or right after this echo when this diff is empty).
      let end = out.length;
      if (next !== undefined) {
        end = out.indexOf(next, start);
        while (end > start && out[end - 1] !== '\0') end = out.indexOf(next, end + 1);
        if (end < 0) throw new RetraceError('E_GIT', `diff-tree --stdin: no echo of ${next.trim()}`);
      }
      answers.set(header, parseFiles(out.slice(start, end)));
      at = end;
    }
  }
  return pairs.map(([a, b]) => (a === b ? [] : answers.get(`${a} ${b}\n`)!));
}

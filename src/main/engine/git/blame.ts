/**
 * `git blame --porcelain` of a file's given contents, starting from the view's HEAD (detachedView.ts), following
 * renames as git does by default. One entry per line of `contents`: the commit that last changed it (null: not
 * in HEAD's history, i.e. changed since), and whether that commit is a root ("boundary": the line was already
 * there in the first commit, no step changed it).
 */
import type { GitRunner } from './runner';

export interface BlamedLine {
  commit: string | null;
  boundary: boolean;
  /** committer-time of the commit, in seconds (0 for lines not committed). */
  time: number;
  /** The commit's first message line. */
  summary: string;
}

const ZERO = '0'.repeat(40);

/** Whether `path` is a file in HEAD (blame fails outright on a path HEAD does not have, or has as a folder). */
export async function headHasPath(git: GitRunner, rel: string): Promise<boolean> {
  const { stdout, exitCode } = await git.exec(['cat-file', '-t', `HEAD:${rel}`], { okExitCodes: [0, 1, 128] });
  return exitCode === 0 && stdout.toString('utf8').trim() === 'blob';
}

export async function blameContents(git: GitRunner, rel: string, contents: Buffer): Promise<BlamedLine[]> {
  const { stdout } = await git.exec(['blame', '--porcelain', '--contents', '-', '--', rel], { stdin: contents });
  return parsePorcelain(stdout.toString('utf8'));
}

/** The porcelain format: a header per line group, commit details on a commit's first appearance, then TAB+line. */
export function parsePorcelain(out: string): BlamedLine[] {
  const commits = new Map<string, { boundary: boolean; time: number; summary: string }>();
  const lines: BlamedLine[] = [];
  let current: string | null = null;
  for (const row of out.split('\n')) {
    if (row.startsWith('\t')) {
      if (current === null) continue;
      const c = commits.get(current)!;
      lines.push({ commit: current === ZERO ? null : current, boundary: c.boundary, time: c.time, summary: c.summary });
      continue;
    }
    const header = /^([0-9a-f]{40}) \d+ \d+/.exec(row);
    if (header) {
      current = header[1]!;
      if (!commits.has(current)) commits.set(current, { boundary: false, time: 0, summary: '' });
      continue;
    }
    if (current === null) continue;
    const c = commits.get(current)!;
    if (row === 'boundary') c.boundary = true;
    else if (row.startsWith('committer-time ')) c.time = Number(row.slice('committer-time '.length)) || 0;
    else if (row.startsWith('summary ')) c.summary = row.slice('summary '.length);
  }
  return lines;
}

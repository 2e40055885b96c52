import type { FileChange, FileStatus } from '../../../shared/model';
import type { GitRunner } from './runner';

export interface RawChange {
  status: FileStatus;
  path: string;
  oldPath?: string;
  oldMode: string;
  newMode: string;
  oldId: string;
  newId: string;
}

const STATUS: Record<string, FileStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'added', // copies are off (no -C); a copy is an addition to the user
  T: 'type-changed',
};

/** Tree-to-tree changes with -z raw records: modes and ids per side, renames when detectRenames. */
export async function diffTreeRaw(
  git: GitRunner,
  from: string,
  to: string,
  opts: { detectRenames?: boolean; paths?: readonly string[] } = {},
): Promise<RawChange[]> {
  const args = [
    'diff-tree',
    '-r',
    '-z',
    '--raw',
    '--no-commit-id',
    opts.detectRenames ? '-M' : '--no-renames',
    from,
    to,
  ];
  if (opts.paths) args.push('--', ...opts.paths);
  return parseRawChanges(await treeOnly(git, args));
}

/** The options of diffTreeRaw for a whole tree with no renames (a restore's plan), for a resident process. */
export const RAW_CHANGES_ARGS = ['-r', '-z', '--raw', '--no-renames'] as const;

/** diffTreeRaw's answer from diff-tree's `-z --raw` output. */
export function parseRawChanges(out: string): RawChange[] {
  return parseRaw(out.split('\0')).raw;
}

/** The file list of a diff: statuses, renames, and +/- per file (binary files have no line counts). */
export async function diffTreeFiles(git: GitRunner, from: string, to: string): Promise<FileChange[]> {
  return parseDiffFiles(await treeOnly(git, ['diff-tree', ...DIFF_FILES_ARGS, '--no-commit-id', from, to]));
}

/** The options of diffTreeFiles, for a resident `diff-tree --stdin` that must answer the same (residentDiffTree.ts). */
export const DIFF_FILES_ARGS = ['-r', '-z', '-M', '--raw', '--numstat'] as const;

/** diffTreeFiles' answer from diff-tree's `-z --raw --numstat` output. */
export function parseDiffFiles(out: string): FileChange[] {
  const tokens = out.split('\0');
  const { raw, next } = parseRaw(tokens);
  const counts = new Map<string, { insertions: number; deletions: number; binary: boolean }>();
  for (let i = next; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === '') continue;
    const [ins, del, p] = splitNumstat(t);
    let key = p;
    if (p === '') {
      i += 2; // rename: old and new path follow
      key = tokens[i] ?? '';
    }
    const binary = ins === '-' || del === '-';
    counts.set(key, { binary, insertions: binary ? 0 : Number(ins), deletions: binary ? 0 : Number(del) });
  }
  return raw.map((r) => {
    const c = counts.get(r.path) ?? { insertions: 0, deletions: 0, binary: false };
    const change: FileChange = { path: r.path, status: r.status, ...c };
    if (r.oldPath !== undefined) change.oldPath = r.oldPath;
    return change;
  });
}

function splitNumstat(t: string): [string, string, string] {
  const a = t.indexOf('\t');
  const b = t.indexOf('\t', a + 1);
  return [t.slice(0, a), t.slice(a + 1, b), t.slice(b + 1)];
}

function parseRaw(tokens: string[]): { raw: RawChange[]; next: number } {
  const raw: RawChange[] = [];
  let i = 0;
  while (i < tokens.length && tokens[i]!.startsWith(':')) {
    const [oldMode, newMode, oldId, newId, statusText] = tokens[i]!.slice(1).split(' ');
    const letter = statusText![0]!;
    const status = STATUS[letter] ?? 'modified';
    if (letter === 'R' || letter === 'C') {
      const oldPath = tokens[i + 1]!;
      const path = tokens[i + 2]!;
      raw.push(
        letter === 'R'
          ? { status, path, oldPath, oldMode: oldMode!, newMode: newMode!, oldId: oldId!, newId: newId! }
          : { status, path, oldMode: oldMode!, newMode: newMode!, oldId: oldId!, newId: newId! },
      );
      i += 3;
    } else {
      raw.push({ status, path: tokens[i + 1]!, oldMode: oldMode!, newMode: newMode!, oldId: oldId!, newId: newId! });
      i += 2;
    }
  }
  return { raw, next: i };
}

/**
 * diff-tree compares two trees, yet reads the index first (at 100k files ~20 ms of a ~25 ms diff): told of
 * an index that does not exist, it skips that and answers the same.
 */
async function treeOnly(git: GitRunner, args: string[]): Promise<string> {
  return (await git.exec(args, { withoutIndex: true })).stdout.toString('utf8');
}

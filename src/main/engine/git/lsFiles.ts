import { GitError } from './errors';
import type { GitRunner } from './runner';

export interface WorkTreeChanges {
  /** Untracked, not ignored. An entry ending in '/' is a nested repository git did not enter. */
  others: string[];
  /** Tracked and changed on disk (stat differs), including type changes; may include deleted paths. */
  modified: string[];
  /** Tracked and gone from disk. */
  deleted: string[];
  /**
   * Paths whose bytes are not valid UTF-8, shown with U+FFFD: every later step names paths as strings, so they
   * cannot be captured faithfully; the snapshot reports them as not captured instead of dropping them silently.
   */
  unsupported?: string[];
  /** Folders git could not open because their path is longer than the system allows (PATH_MAX). */
  tooLong?: string[];
}

/** ~3,000 files (a version 4 index entry takes ~75 bytes), where two processes start to pay off. */
const SIDE_BY_SIDE_MIN_INDEX_BYTES = 220 * 1024;

/**
 * Both walks: the index against the disk (modified / deleted) and the directory walk for new files, honouring
 * .gitignore at every level plus <shadow>/info/exclude. A full scan runs them as two processes side by side: one
 * ls-files does them one after the other (30–34 ms at 10,000 files, against 23 for the pair on two cores). The
 * two outputs, concatenated, are that one process's (others first, then the tracked entries). In a small folder
 * the second process costs more than it saves (1–2 ms more at 1,000 files): one process below
 * SIDE_BY_SIDE_MIN_INDEX_BYTES (`sideBySide` decides instead when given: tests). The warm path (pathspec) never
 * looks at the index's size.
 */
export async function listWorkTreeChanges(
  git: GitRunner,
  pathspec?: readonly string[],
  sideBySide?: boolean,
): Promise<WorkTreeChanges> {
  // pathspec (literal, see the runner): limit both walks to these paths — the warm path (shadow/warmScope.ts).
  // There `--modified --deleted` would still lstat every index entry (ls-files applies the pathspec after its
  // lstat: ~0.3 s at 100k files), so the hinted entries are listed with --cached instead, as "modified": the
  // snapshot lstats each of them itself, and update-index re-hashes only those (unchanged ones keep their blob).
  const others = ['ls-files', '-z', '-t', '--others', '--exclude-standard'];
  const list = async (): Promise<{ stdout: Buffer; stderr: string }> =>
    pathspec
      ? await git.exec([...others, '--cached', '--', ...pathspec])
      : (sideBySide ?? git.indexBytes() >= SIDE_BY_SIDE_MIN_INDEX_BYTES)
        ? joined(await git.execSideBySide([others, ['ls-files', '-z', '-t', '--modified', '--deleted']]))
        : await git.exec([...others, '--modified', '--deleted']);
  const { stdout, stderr } = await afterChurn(list);
  // git only warns about a folder it cannot open and walks on: that would silently drop its files.
  const unreadable = /could not open directory '(.*?)\/?': Permission denied/.exec(stderr);
  if (unreadable) throw new GitError('unreadable', `cannot read folder ${unreadable[1]}`, [], 0, stderr, unreadable[1]);
  // Likewise for a folder past PATH_MAX: reported as not captured instead of left out without a word.
  const tooLong = tooLongFolders(stderr);
  const result: WorkTreeChanges = { others: [], modified: [], deleted: [], unsupported: [], tooLong };
  for (const raw of splitNul(stdout)) {
    const entry = raw.toString('utf8');
    if (entry.length < 3) continue;
    if (!Buffer.from(entry, 'utf8').equals(raw)) {
      result.unsupported!.push(entry.slice(2));
      continue;
    }
    const tag = entry[0];
    const p = entry.slice(2);
    if (tag === '?') result.others.push(p);
    else if (tag === 'R') result.deleted.push(p);
    else result.modified.push(p); // 'C' (changed), or 'H' (cached: a hinted entry, see above)
  }
  return result;
}

/**
 * A racily clean entry is hashed to compare it (git maps a file of more than 32 KB): one an agent cuts short
 * meanwhile kills that ls-files with SIGBUS (errors.ts 'churned'). It only reads: run again.
 */
async function afterChurn<T>(list: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await list();
    } catch (e) {
      if (!(e instanceof GitError && e.kind === 'churned') || attempt >= 4) throw e;
    }
  }
}

/**
 * Folders git warned it could not open because their path is too long. git cuts a message at 4096 bytes, so
 * for such a path the reason is usually cut off: a warning without its reason names a folder that long, and
 * the part up to its last complete '/' is reported (the folder holding what could not be opened).
 */
function tooLongFolders(stderr: string): string[] {
  const out: string[] = [];
  for (const m of stderr.matchAll(/could not open directory '([^\n]*)/g)) {
    const rest = m[1]!;
    const end = rest.lastIndexOf("': ");
    if (end >= 0) {
      if (rest.slice(end).includes('File name too long')) out.push(rest.slice(0, end).replace(/\/+$/, ''));
    } else if (rest.includes('/')) {
      out.push(rest.slice(0, rest.lastIndexOf('/')));
    }
  }
  return out;
}

function splitNul(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = buf.indexOf(0); i >= 0; i = buf.indexOf(0, start)) {
    out.push(buf.subarray(start, i));
    start = i + 1;
  }
  if (start < buf.length) out.push(buf.subarray(start));
  return out;
}

/** Tracked entries that the ignore rules now exclude (after a .gitignore / .retraceignore change). */
export async function listIgnoredTracked(git: GitRunner): Promise<string[]> {
  const out = await git.raw(['ls-files', '-z', '--cached', '--ignored', '--exclude-standard']);
  return out.split('\0').filter((p) => p !== '');
}

/** Every path in the shadow index. */
export async function listIndex(git: GitRunner): Promise<string[]> {
  const out = await git.raw(['ls-files', '-z', '--cached']);
  return out.split('\0').filter((p) => p !== '');
}

/** The index entries that are `paths` in any letter case (case-insensitive folders: shadow/caseInsensitive.ts). */
export async function listIndexAnyCase(git: GitRunner, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  // Magic on, each pathspec literal but for case.
  const icase = paths.map((p) => `:(icase,literal)${p}`);
  const out = await git.raw(['ls-files', '-z', '--cached', '--', ...icase], { literalPathspecs: false });
  return out.split('\0').filter((p) => p !== '');
}

function joined(results: readonly { stdout: Buffer; stderr: string }[]): { stdout: Buffer; stderr: string } {
  return { stdout: Buffer.concat(results.map((r) => r.stdout)), stderr: results.map((r) => r.stderr).join('') };
}

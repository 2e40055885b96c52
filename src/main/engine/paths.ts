/**
 * The one place that decides whether a path names something inside the workspace. Two checks, for two kinds
 * of caller:
 * - `checkWorkspacePath`: a path a person or a program gave us (CLI `--file`, the UI, a hook): normalised to a
 *   workspace-relative '/'-path, refused when absolute, when it climbs out with `..`, or when an existing folder
 *   on the way is a symlink that leads out of the root.
 * - `assertSafeRelPath`: a path the engine itself produced (a tree entry, a plan step) right before it touches
 *   the disk: already normalised, so anything unusual is a bug or a hostile tree, and never a `.git` path (I1).
 */
import { lstat, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { RetraceError } from '../../shared/errors';
import { hasGitSegment } from './excludes';

export async function checkWorkspacePath(root: string, p: string): Promise<string> {
  const outside = (): RetraceError =>
    new RetraceError('E_PATH_OUTSIDE_WORKSPACE', `path is outside the workspace: ${JSON.stringify(p)}`);
  if (p === '' || p.includes('\0')) throw new RetraceError('E_INVALID_INPUT', `not a file path: ${JSON.stringify(p)}`);
  if (p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p) || isAbsolute(p)) throw outside();
  // A backslash is a separator on Windows: judge the path as if it were one there too.
  const parts = p.split(/[\\/]/).filter((x) => x !== '' && x !== '.');
  if (parts.length === 0) throw new RetraceError('E_INVALID_INPUT', `not a file path: ${JSON.stringify(p)}`);
  if (parts.includes('..')) throw outside();
  const rel = p
    .split('/')
    .filter((x) => x !== '' && x !== '.')
    .join('/');
  // Every existing parent folder must really be inside the root (a symlinked folder could lead out).
  const realRoot = await realpath(root);
  let dir = root;
  const segs = rel.split('/');
  for (let i = 0; i < segs.length - 1; i++) {
    dir = join(dir, segs[i]!);
    let st;
    try {
      st = await lstat(dir);
    } catch {
      break; // does not exist (yet): nothing to follow
    }
    if (st.isSymbolicLink()) {
      const real = await realpath(dir).catch(() => null);
      const r = real === null ? '..' : relative(realRoot, real);
      if (r === '..' || r.startsWith('../') || isAbsolute(r)) throw outside();
    }
  }
  return rel;
}

/** Workspace-relative, '/'-separated, no '.', '..' or empty segments, never inside a `.git`. */
export function assertSafeRelPath(rel: string): void {
  const bad =
    rel === '' ||
    rel.startsWith('/') ||
    isAbsolute(rel) ||
    rel.includes('\0') ||
    rel.split('/').some((s) => s === '' || s === '.' || s === '..');
  if (bad) throw new RetraceError('E_PATH_OUTSIDE_WORKSPACE', `not a path inside the folder: ${JSON.stringify(rel)}`);
  if (hasGitSegment(rel)) throw new RetraceError('E_INVALID_INPUT', `refusing to touch a .git path: ${rel}`);
}

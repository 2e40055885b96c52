/** One file on both sides of a comparison, as the diff editor shows it (CLI.md `diff --file`). */
import { lstat, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isBinaryFileSync } from 'isbinaryfile';
import { RetraceError } from '../../../shared/errors';
import type { FileContents } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import { isHardExcluded } from '../excludes';
import { checkWorkspacePath } from '../paths';

/** Sides larger than this are not inlined in diffs (the UI shows a notice). */
export const INLINE_LIMIT = 2 * 1024 * 1024;

/**
 * One file on both sides, as UTF-8 text (null where it does not exist). Binary files and sides over
 * INLINE_LIMIT are not inlined. 'working' reads the disk (never through a symlinked folder).
 */
export async function fileContents(
  ctx: Pick<WorkspaceContext, 'ws' | 'shadow'>,
  from: string | null,
  to: string | 'working',
  path: string,
  oldPath?: string,
): Promise<FileContents> {
  const { rel, before, after: read } = await fileSides(ctx, from, to, path, oldPath, INLINE_LIMIT);
  const after = read === 'too-large' ? null : read;
  const sides = [before, after].filter((x): x is { bytes: Buffer } => x !== null);
  const binary = sides.some((x) => isBinaryFileSync(x.bytes, x.bytes.length));
  const tooLarge = read === 'too-large' || sides.some((x) => x.bytes.length > INLINE_LIMIT);
  const text = (x: { bytes: Buffer } | null): string | null =>
    x === null || binary || tooLarge ? null : x.bytes.toString('utf8');
  const out: FileContents = { path: rel, binary, before: text(before), after: text(after) };
  if (tooLarge) out.tooLarge = true;
  return out;
}

/**
 * One file's bytes on both sides (null where it does not exist), its path checked. A working file over
 * `workingLimit` is never read (it may be gigabytes): 'too-large'.
 */
export async function fileSides(
  ctx: Pick<WorkspaceContext, 'ws' | 'shadow'>,
  from: string | null,
  to: string | 'working',
  path: string,
  oldPath: string | undefined,
  workingLimit: number,
): Promise<{ rel: string; before: { bytes: Buffer } | null; after: { bytes: Buffer } | 'too-large' | null }> {
  const rel = await checkWorkspacePath(ctx.ws.root, path);
  const relOld = oldPath !== undefined ? await checkWorkspacePath(ctx.ws.root, oldPath) : rel;
  const shadow = await ctx.shadow();
  const before = from ? await shadow.readFile(from, relOld) : null;
  const after = to === 'working' ? await readWorking(ctx.ws.root, rel, workingLimit) : await shadow.readFile(to, rel);
  return { rel, before, after };
}

async function readWorking(root: string, rel: string, limit: number): Promise<{ bytes: Buffer } | 'too-large' | null> {
  // Never captured (any .git, node_modules, secrets), so never shown either.
  if (isHardExcluded(rel)) return null;
  const full = join(root, rel);
  let st;
  try {
    st = await lstat(full);
  } catch {
    return null;
  }
  if (st.isSymbolicLink()) return { bytes: Buffer.from(await readlink(full, { encoding: 'buffer' })) };
  if (!st.isFile()) return null;
  if (st.size > limit) return 'too-large';
  try {
    return { bytes: await readFile(full) };
  } catch {
    throw new RetraceError('E_UNREADABLE', `cannot read ${rel}`);
  }
}

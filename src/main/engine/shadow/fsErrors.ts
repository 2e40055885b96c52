/**
 * What the operating system said, as a one-line error that names the path (I7): a restore that cannot write a
 * file says which file and why, instead of a bare `ENOSPC` or an E_INTERNAL.
 */
import { RetraceError } from '../../../shared/errors';

const BY_ERRNO: Record<string, { code: 'E_NO_SPACE' | 'E_PERMISSION' | 'E_FILE_BUSY'; says: string }> = {
  ENOSPC: { code: 'E_NO_SPACE', says: 'the disk is full' },
  EDQUOT: { code: 'E_NO_SPACE', says: 'the disk quota is used up' },
  EACCES: { code: 'E_PERMISSION', says: 'permission denied' },
  EPERM: { code: 'E_PERMISSION', says: 'operation not permitted' },
  EROFS: { code: 'E_PERMISSION', says: 'the file system is read-only' },
  EBUSY: { code: 'E_FILE_BUSY', says: 'it is held open by another program' },
};

/** A RetraceError naming `rel` for the errors a user can act on; anything else is returned unchanged. */
export function fsError(e: unknown, rel?: string, doing = 'write'): unknown {
  if (e instanceof RetraceError) return e;
  const err = e as NodeJS.ErrnoException | null;
  const known = err?.code ? BY_ERRNO[err.code] : undefined;
  if (!known) return e;
  const what = rel ?? err?.path ?? 'a file';
  return new RetraceError(known.code, `cannot ${doing} ${what}: ${known.says} (${err!.code})`, { cause: e });
}

/** Run one file-system step on `rel`, mapping its failure with fsError. */
export async function onPath<T>(rel: string, doing: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    throw fsError(e, rel, doing);
  }
}

/**
 * Untimed, between one method's timed runs and the next's: the writes a method left unsynced (raw git's checkout,
 * the copy method's half-gigabyte copies) are flushed here, so that a method that syncs its own writes (Retrace's
 * restores and hooks) does not pay for flushing another method's. One syncfs, as the engine syncs (syncFs.ts);
 * a plain sync where that is not trusted.
 */
import { execFileSync } from 'node:child_process';
import { syncFileSystemsOf } from '../src/main/engine/syncFs';

export async function settleDisk(folder: string): Promise<void> {
  if (!(await syncFileSystemsOf([folder]))) execFileSync('sync');
}

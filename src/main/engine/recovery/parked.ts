/**
 * A rollback that cannot finish now — a file held open by another program (Windows), a full disk, a file made
 * read-only — must neither be forgotten nor wedge the workspace (issue 10, items 8 and 12): its journal is
 * parked in <ws.dir>/rollback-pending.json, recording goes on (a checkpoint records the folder as it is), every
 * writing command tries the rollback again, and a new restore or undo refuses to start until it is done.
 */
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { isRetraceError, RetraceError } from '../../../shared/errors';
import type { WorkspaceContext } from '../context';
import type { RestoreJournal } from '../journal';
import { PRIVATE_FILE_MODE } from '../privateFs';
import { writeNewFile } from '../shadow/atomicWrite';
import { syncDir } from '../syncFs';
import { rollBack } from './recover';
import { report } from './report';

/** The failures that time or the user can clear; anything else is a bug and stays loud. */
const WAITS_FOR_USER = new Set(['E_FILE_BUSY', 'E_NO_SPACE', 'E_PERMISSION']);

export const canPark = (e: unknown): e is RetraceError => isRetraceError(e) && WAITS_FOR_USER.has(e.code);

const fileOf = (ctx: WorkspaceContext): string => path.join(ctx.ws.dir, 'rollback-pending.json');

function readParked(ctx: WorkspaceContext): RestoreJournal | null {
  try {
    return JSON.parse(readFileSync(fileOf(ctx), 'utf8')) as RestoreJournal;
  } catch {
    return null;
  }
}

export async function park(ctx: WorkspaceContext, j: RestoreJournal, e: RetraceError): Promise<void> {
  const file = fileOf(ctx);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeNewFile(tmp, Buffer.from(JSON.stringify(j)), PRIVATE_FILE_MODE, true);
  await fs.rename(tmp, file);
  await syncDir(ctx.ws.dir);
  ctx.journal.clear();
  ctx.recoveryLog.add([
    report(
      'restore-rollback-unfinished',
      `${j.undoOf ? `undo of ${j.undoOf}` : `restore ${j.rid}`} could not be rolled back yet: ${e.message}; ` +
        'the next command tries again, and no restore starts before it is done',
    ),
  ]);
}

/** Try the parked rollback again; true when none is left. `quiet`: a failure is not an error (recording). */
async function retry(ctx: WorkspaceContext, quiet: boolean): Promise<boolean> {
  const j = readParked(ctx);
  if (!j) return true;
  try {
    await rollBack(ctx, j, 'had failed; its rollback was finished later');
  } catch (e) {
    if (quiet && canPark(e)) return false;
    if (canPark(e))
      throw new RetraceError(
        e.code,
        `restore ${j.rid} is not rolled back yet: ${e.message}; close or free what blocks it and run the command again`,
      );
    throw e;
  }
  await fs.rm(fileOf(ctx), { force: true });
  return true;
}

/** For every writing command (recovery): finish a parked rollback when possible, else carry on recording. */
export const retryParkedRollback = (ctx: WorkspaceContext): Promise<boolean> => retry(ctx, true);

/** For restore and undo: a parked rollback must be finished first. */
export async function finishParkedRollback(ctx: WorkspaceContext): Promise<void> {
  await retry(ctx, false);
}

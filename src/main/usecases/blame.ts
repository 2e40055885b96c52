/**
 * Who last changed each line of a file (CLI `retrace blame`, the app's Blame gutter): one entry point for both.
 * `path` is workspace-relative; the engine refuses paths outside the folder, missing files and binaries.
 */
import type { BlameResult } from '../../shared/model';
import { toRetraceError } from '../engine/git/errors';
import { blameFile } from '../engine/read/blame';
import type { WorkspaceEngine } from '../engine/workspaceEngine';

export async function blame(
  engine: WorkspaceEngine,
  path: string,
  opts: { session?: string } = {},
): Promise<BlameResult> {
  // git's own failures arrive as GitErrors: give them their codes (E_GIT, E_CORRUPT…), never E_INTERNAL.
  return blameFile(engine, path, opts).catch((e: unknown) => {
    throw toRetraceError(e);
  });
}

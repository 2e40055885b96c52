/**
 * Who last changed each line of a file (CLI `retrace blame`, the app's Blame gutter): one entry point for both.
 * `path` is workspace-relative; the engine refuses paths outside the folder, missing files and binaries.
 */
import type { BlameResult } from '../../shared/model';
import { blameFile } from '../engine/read/blame';
import type { WorkspaceEngine } from '../engine/workspaceEngine';

export async function blame(
  engine: WorkspaceEngine,
  path: string,
  opts: { session?: string } = {},
): Promise<BlameResult> {
  return blameFile(engine, path, opts);
}

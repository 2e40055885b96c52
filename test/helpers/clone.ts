/**
 * Copy a workspace and its Retrace data to a new path, as if the CLI had recorded the same history there:
 * the data folder is re-keyed to the copy's workspace id (resolveWorkspace writes its workspace.json) and
 * everything else (shadow.git, sessions, ledger, …) is copied with timestamps kept. Much cheaper than
 * re-running the CLI to build the same state for every trial.
 */
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { resolveWorkspace } from '../../src/main/engine/workspace';
import { workspaceDataDir } from './shadow';
import { tempDir, tempHome } from './tmp';

export async function cloneWorkspace(ws: string, home: string): Promise<{ ws: string; home: string }> {
  const copy = tempDir('retrace-ws-');
  cpSync(ws, copy, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  const copyHome = tempHome();
  const ref = await resolveWorkspace(copy, { dataHome: copyHome });
  const from = workspaceDataDir(home, ws);
  if (from) {
    for (const name of readdirSync(from)) {
      if (name === 'workspace.json' || name === 'writer.lock') continue;
      cpSync(join(from, name), join(ref.dir, name), {
        recursive: true,
        preserveTimestamps: true,
        verbatimSymlinks: true,
      });
    }
  }
  return { ws: copy, home: copyHome };
}

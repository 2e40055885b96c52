/**
 * The workspace a hook call records into. A call names the agent's current folder, which follows the agent's
 * `cd`s, and a Claude Code HTTP hook has nothing else to go by (CLAUDE_PROJECT_DIR is only in a command hook's
 * environment): a session started in /proj that ran `cd web` went on in a workspace of /proj/web of its own, its
 * timeline split in two and neither checkpoint chain whole. So the nearest folder at or above the call's folder
 * whose workspace holds this session already is the one; with none (a session's first call), the folder itself.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isCaseInsensitive, resolveWorkspace, workspaceId, type WorkspaceRef } from '../../engine/workspace';

export async function resolveSessionWorkspace(
  dir: string,
  session: string,
  opts: { dataHome: string },
): Promise<WorkspaceRef> {
  const holder = await folderHolding(dir, session, opts.dataHome);
  return resolveWorkspace(holder ?? dir, opts);
}

/** Looked up without writing anything: a folder below the session's own is not made a workspace in passing. */
async function folderHolding(dir: string, session: string, dataHome: string): Promise<string | null> {
  let real: string;
  try {
    real = realpathSync.native(path.resolve(dir));
  } catch {
    return null; // resolveWorkspace says what is wrong with it
  }
  const caseInsensitive = await isCaseInsensitive(real);
  const workspaces = path.join(path.resolve(dataHome), 'workspaces');
  for (let folder = real; ; folder = path.dirname(folder)) {
    const log = path.join(workspaces, workspaceId(folder, caseInsensitive), 'sessions', `${session}.jsonl`);
    if (existsSync(log)) return folder;
    if (path.dirname(folder) === folder) return null;
  }
}

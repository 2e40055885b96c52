/**
 * What a workspace's history takes on disk, the one figure `status`, `gc` and the budget use: the shadow
 * repository (objects, packs, its index) plus the session logs. Archived transcripts are counted apart
 * (archive.ts): they are the sources, kept on purpose, and `status` shows them as archiveBytes.
 */
import type { WorkspaceContext } from '../context';
import { dirBytes } from './dirBytes';

export async function measureStorage(ctx: WorkspaceContext): Promise<number> {
  const shadow = await ctx.shadow();
  const [repo, logs] = await Promise.all([dirBytes(shadow.gitDir), dirBytes(ctx.sessions.dir)]);
  return repo + logs;
}

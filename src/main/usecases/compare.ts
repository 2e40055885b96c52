/**
 * The two sides of a comparison, named as the CLI and the UI name them: a checkpoint (hash, prefix or message
 * id), null for the empty tree, or 'working' for the files as they are now. One check for both callers: an
 * unknown or unavailable checkpoint is the caller's mistake (E_UNKNOWN_CHECKPOINT), not a git failure.
 */
import type { WorkspaceEngine } from '../engine/workspaceEngine';

export async function resolveSide<T extends string | null>(engine: WorkspaceEngine, spec: T): Promise<T> {
  if (spec === null || spec === 'working') return spec;
  return (await engine.resolveCommit(spec)) as T;
}

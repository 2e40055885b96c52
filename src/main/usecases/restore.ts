/**
 * A restore as people ask for it, for the CLI and the service alike: the engine's transaction, then — for a
 * Claude Code session whose conversation went back — a forked transcript to resume from. A fork that cannot be
 * made never undoes the restore: the result has no `resume`, and `problem` says why.
 */
import type { RestoreResult } from '../../shared/model';
import type { RestoreRequest, WorkspaceEngine } from '../engine/workspaceEngine';

export async function restoreAndFork(
  engine: WorkspaceEngine,
  req: RestoreRequest,
): Promise<{ result: RestoreResult; problem?: string }> {
  const result = await engine.restore(req);
  const { resumeAfterRestore } = await import('../integrations/claude-code/resume');
  const { resume, problem } = await resumeAfterRestore(engine, result);
  return { result: resume ? { ...result, resume } : result, ...(problem ? { problem } : {}) };
}

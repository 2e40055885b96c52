/**
 * Reverting a step and restoring or reverting one hunk, as people ask for them from the CLI and the app alike:
 * the engine's transaction (restore/revert.ts, restore/hunk.ts). The CLI prints the contract's shape, without
 * the app's preview commits.
 */
import type { HunkResult, RevertResult } from '../../shared/model';
import type { HunkRequest, RevertRequest, WorkspaceEngine } from '../engine/workspaceEngine';

export async function revertStep(engine: WorkspaceEngine, req: RevertRequest): Promise<RevertResult> {
  return engine.revert(req);
}

/** The CLI's shape (CLI.md): the preview commits are for the app. */
export function withoutPreview(r: RevertResult): RevertResult {
  const { preview: _preview, ...rest } = r;
  return rest;
}

export async function applyHunk(engine: WorkspaceEngine, req: HunkRequest): Promise<HunkResult> {
  return engine.applyHunk(req);
}

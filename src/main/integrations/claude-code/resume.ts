/**
 * After a conversation restore (or "both") of a session that came from Claude Code: fork its transcript at
 * the restored message, so `claude --resume <newId>` continues from exactly there. Called by the service
 * and the CLI restore command (the engine stays source-agnostic). A fork that cannot be made never undoes
 * the restore: the result simply has no `resume`, and the reason is returned for a note.
 */
import type { RestoreResult } from '../../../shared/model';
import type { WorkspaceEngine } from '../../engine/workspaceEngine';
import { forkFolder, forkTranscript } from './fork';
import { loadOrigin } from './origin';

export interface ResumeOutcome {
  resume?: NonNullable<RestoreResult['resume']>;
  /** Why there is no fork although the session came from Claude Code. */
  problem?: string;
}

export async function resumeAfterRestore(
  engine: WorkspaceEngine,
  res: RestoreResult,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ResumeOutcome> {
  if (res.dryRun || res.mode === 'code') return {};
  const state = await engine.session(res.target.session).catch(() => null);
  if (!state) return {};
  // The session header says where it came from; the integration's own note is the fallback (older sessions).
  const header = state.header.origin?.kind === 'claude-code' ? state.header.origin : undefined;
  const side = loadOrigin(engine.ws, res.target.session);
  const transcript = header?.transcript ?? side?.transcript;
  if (!transcript) return {};
  const cwd = header?.cwd ?? side?.cwd ?? null;
  try {
    const m = state.messages.find((x) => x.id === res.target.message);
    if (!m) return { problem: `message ${res.target.message} is not in session ${res.target.session}` };
    const fork = forkTranscript(
      transcript,
      {
        ...(m.meta?.sourceId ? { sourceId: m.meta.sourceId } : {}),
        ts: m.ts,
        ...(m.role === 'user' ? { promptText: m.text } : {}),
      },
      { env, dir: forkFolder(transcript, cwd, env) },
    );
    return { resume: { sessionId: fork.sessionId, command: fork.command, transcript: fork.transcript } };
  } catch (e) {
    return { problem: `no resumable Claude Code transcript: ${(e as Error).message}` };
  }
}

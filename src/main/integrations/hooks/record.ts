/**
 * What every agent's hook does once it knows what a call means: one message (and a checkpoint of the
 * workspace as it is now) in the session of the agent's own id. The agent-specific modules (codex/hook.ts,
 * gemini/hook.ts) only turn a payload into a HookRecord; the recording, the hint paths and the retry check
 * live here. (claude-code/hook.ts does the same inline; it could use this module unchanged.)
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { MessageMeta, Role } from '../../../shared/model';
import { isValidSessionId } from '../../engine/sessions/ids';
import { WorkspaceEngine } from '../../engine/workspaceEngine';
import { resolveSessionWorkspace } from './sessionWorkspace';

export type HookAgent = 'codex' | 'gemini';

/** One hook call, understood: what to record where. */
export interface HookRecord {
  agent: HookAgent;
  event: string;
  session: string | undefined;
  /** The project folder (the workspace is found from it). */
  dir: string | undefined;
  /** The agent's current folder: relative file paths in tool inputs are relative to it. */
  cwd: string | undefined;
  role: Role;
  text: string;
  meta: MessageMeta;
  /** Files the call names (absolute or relative to cwd): the snapshot looks at them first. */
  files: string[];
  transcript?: string | undefined;
}

export interface HookOutcome {
  event: string;
  /** False when the event is not one Retrace records (or the tool changes no files). */
  recorded: boolean;
  session?: string;
  message?: string;
  hash?: string | null;
}

export async function recordHookCall(
  rec: HookRecord,
  opts: { dataHome: string; env?: NodeJS.ProcessEnv },
): Promise<HookOutcome> {
  const env = opts.env ?? process.env;
  const { session, event } = rec;
  if (!session || !isValidSessionId(session))
    throw new RetraceError('E_INVALID_INPUT', `the hook payload has no usable session_id (${String(session)})`);
  if (!rec.dir) throw new RetraceError('E_INVALID_INPUT', 'the hook payload names no cwd');
  const ws = await resolveSessionWorkspace(rec.dir, session, { dataHome: opts.dataHome });
  const engine = new WorkspaceEngine(ws, { actor: 'retrace hook' });
  // A retried call, or a second stop for the same reply (an agent fires its stop hook again when another hook
  // made the turn go on and nothing new was said): recorded already.
  if ((env.RETRACE_HOOK_RETRY === '1' || rec.role === 'assistant') && alreadyRecorded(engine, rec))
    return { event, recorded: false, session };
  const hints = hintPaths(ws.root, rec.files, rec.cwd ?? rec.dir);
  const origin = rec.transcript
    ? { kind: rec.agent, transcript: rec.transcript, sessionId: session, cwd: ws.root }
    : undefined;
  const res = await engine.record({
    session,
    role: rec.role,
    text: rec.text,
    checkpoint: true,
    meta: rec.meta,
    source: rec.agent,
    ...(origin ? { origin } : {}),
    ...(hints.length > 0 ? { hintPaths: hints } : {}),
  });
  return { event, recorded: true, session: res.session, message: res.message, hash: res.hash };
}

/**
 * A call the hook server may have recorded before its connection broke (the client runs it again with
 * RETRACE_HOOK_RETRY=1): recorded already when the session's last event is this very message.
 */
function alreadyRecorded(engine: WorkspaceEngine, rec: HookRecord): boolean {
  const last = engine.sessions.lastEvent(rec.session!);
  return (
    last?.type === 'message' &&
    last.role === rec.role &&
    last.text === rec.text &&
    (last.meta?.sourceId ?? null) === (rec.meta.sourceId ?? null)
  );
}

/** Workspace-relative forms of the files inside the workspace; the others are dropped. */
export function hintPaths(root: string, files: string[], cwd: string | undefined): string[] {
  const out = new Set<string>();
  for (const file of files) {
    const abs = isAbsolute(file) ? file : cwd ? resolve(cwd, file) : null;
    if (!abs) continue;
    const rel = relative(root, abs);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
    out.add(rel.split('\\').join('/'));
  }
  return [...out];
}

/**
 * `retrace hook claude-code`: records one Claude Code hook call (a JSON payload on stdin) in the session
 * of the same id — UserPromptSubmit → the prompt + a checkpoint before the agent acts; PostToolUse of a
 * file-changing tool (Edit, Write, MultiEdit, NotebookEdit, Bash) → a tool message + a checkpoint; Stop →
 * the assistant's final text (read from the transcript) + a checkpoint. Everything else is ignored.
 *
 * The caller (the CLI command) never lets a failure reach the agent: it logs and exits 0. Nothing is ever
 * printed on stdout (Claude Code adds a UserPromptSubmit hook's stdout to the model's context).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { parseHookPayload } from '../hooks/payload';
import { stripAnsi } from '../details';
import type { MessageMeta, Role } from '../../../shared/model';
import { isValidSessionId } from '../../engine/sessions/ids';
import { step } from '../../engine/stepTrace';
import { resolveSessionWorkspace } from '../hooks/sessionWorkspace';
import { WorkspaceEngine } from '../../engine/workspaceEngine';
import { arr, obj, str } from './jsonl';
import { saveOrigin } from './origin';
import { noteServerGap } from './serverGap';
import { claudeToolDetail } from './toolDetail';
import { summarizeToolUse } from './toolSummary';

export const CHECKPOINT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'Bash']);

export interface HookPayload {
  hook_event_name?: string;
  session_id?: string;
  cwd?: string;
  transcript_path?: string;
  prompt?: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_response?: unknown;
  tool_use_id?: string;
  last_assistant_message?: string;
  /** Stop: true when Claude goes on because a Stop hook asked it to (this Stop may repeat the last one). */
  stop_hook_active?: boolean;
  /** Set inside sub-agents (newer Claude Code). */
  agent_id?: string;
  agent_type?: string;
}

export interface HookOutcome {
  event: string;
  /** False when the event is not one Retrace records (or the tool changes no files). */
  recorded: boolean;
  session?: string;
  message?: string;
  hash?: string | null;
}

export function parsePayload(text: string): HookPayload {
  return parseHookPayload(text) as HookPayload;
}

export async function handleHook(
  payload: HookPayload,
  opts: { dataHome: string; env?: NodeJS.ProcessEnv },
): Promise<HookOutcome> {
  const env = opts.env ?? process.env;
  const event = payload.hook_event_name ?? '';
  const plan = planRecord(payload);
  if (!plan) return { event, recorded: false };
  const session = payload.session_id;
  if (!session || !isValidSessionId(session))
    throw new RetraceError('E_INVALID_INPUT', `the hook payload has no usable session_id (${String(session)})`);
  // The project folder Claude Code was started in; `cwd` follows the agent's `cd`s (sessionWorkspace.ts).
  const dir = env.CLAUDE_PROJECT_DIR || payload.cwd;
  if (!dir) throw new RetraceError('E_INVALID_INPUT', 'the hook payload names no cwd');
  const ws = await step('workspace', () => resolveSessionWorkspace(dir, session, { dataHome: opts.dataHome }));
  // A checkpoint this call cannot record (E_LOCKED after the bounded wait, git failing) is listed as missed (I10).
  const engine = new WorkspaceEngine(ws, {
    actor: 'retrace hook',
    missedAs: [event, payload.tool_name].filter(Boolean).join(' '),
  });

  let { text, meta } = plan;
  if (event === 'Stop') {
    const final = payload.transcript_path ? await finalReply(payload.transcript_path) : null;
    text = final?.text || payload.last_assistant_message || 'Claude finished its turn';
    if (final?.uuid) meta = { ...meta, sourceId: final.uuid };
  }
  text = stripAnsi(text);
  // A retried call, or a Stop run again for a reply already recorded (stop_hook_active): never twice.
  const mayRepeat = env.RETRACE_HOOK_RETRY === '1' || (event === 'Stop' && payload.stop_hook_active === true);
  if (mayRepeat && alreadyRecorded(engine, session, plan.role, text, meta)) {
    return { event, recorded: false, session };
  }
  const hint = plan.file ? hintPath(ws.root, plan.file, payload.cwd) : null;
  const previous = event === 'UserPromptSubmit' ? engine.sessions.lastEvent(session) : null;
  const res = await step('record', () =>
    engine.record({
      session,
      role: plan.role,
      text,
      checkpoint: true,
      meta,
      source: 'claude-code',
      ...(payload.transcript_path
        ? {
            origin: {
              kind: 'claude-code' as const,
              transcript: payload.transcript_path,
              sessionId: session,
              cwd: ws.root,
            },
          }
        : {}),
      ...(hint ? { hintPaths: [hint] } : {}),
    }),
  );
  if (event === 'UserPromptSubmit') noteServerGap(engine, { session, dataHome: opts.dataHome, env, previous });
  const transcript = payload.transcript_path;
  if (transcript) {
    await step('origin', () =>
      saveOrigin(ws, session, {
        kind: 'claude-code',
        transcript,
        sessionId: session,
        cwd: ws.root,
      }),
    );
  }
  return { event, recorded: true, session: res.session, message: res.message, hash: res.hash };
}

/**
 * A call the hook server may have recorded before its connection broke (the client runs it again here, with
 * RETRACE_HOOK_RETRY=1): recorded already when the session's last event is this very message.
 */
function alreadyRecorded(
  engine: WorkspaceEngine,
  session: string,
  role: Role,
  text: string,
  meta: MessageMeta,
): boolean {
  const last = engine.sessions.lastEvent(session); // null when the session has no log yet
  return (
    last?.type === 'message' &&
    last.role === role &&
    last.text === text &&
    (last.meta?.sourceId ?? null) === (meta.sourceId ?? null)
  );
}

interface Plan {
  role: Role;
  text: string;
  meta: MessageMeta;
  file?: string;
}

/** What to record for an event, or null when Retrace does not record it. */
export function planRecord(p: HookPayload): Plan | null {
  switch (p.hook_event_name) {
    case 'UserPromptSubmit':
      return { role: 'user', text: p.prompt ?? '', meta: {} };
    case 'PostToolUse': {
      const tool = p.tool_name ?? '';
      if (!CHECKPOINT_TOOLS.has(tool)) return null;
      const s = summarizeToolUse(tool, p.tool_input, p.cwd ?? null);
      // A sub-agent's tool call (Claude Code names the agent): its changes are real, say whose they were.
      const agent = p.agent_type ?? p.agent_id;
      if (agent) s.text = `${s.text} (sub-agent ${agent})`;
      const meta: MessageMeta = { tool: s.tool };
      if (s.file) meta.file = s.file;
      if (s.command) meta.command = s.command;
      // The tool call's id: the fork on a conversation restore finds its line in the transcript by it.
      if (p.tool_use_id) meta.sourceId = p.tool_use_id;
      // What the Message region shows: the call's input, an edit's patch, what a command printed.
      const printed = [str(obj(p.tool_response)?.stdout), str(obj(p.tool_response)?.stderr)].filter(Boolean);
      meta.toolCalls = [
        claudeToolDetail(p.tool_use_id ?? '', tool, p.tool_input, {
          output: printed.join('\n'), // toolCallDetail drops its colour codes
          isError: false,
          report: p.tool_response,
        }),
      ];
      const file = str(obj(p.tool_input)?.file_path) ?? str(obj(p.tool_input)?.notebook_path);
      return { role: 'tool', text: s.text, meta, ...(file ? { file } : {}) };
    }
    case 'Stop':
      return { role: 'assistant', text: '', meta: {} };
    default:
      return null;
  }
}

function hintPath(root: string, file: string, cwd: string | undefined): string | null {
  const abs = isAbsolute(file) ? file : cwd ? `${cwd}/${file}` : null;
  if (!abs) return null;
  const rel = relative(root, abs);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? null : rel.split('\\').join('/');
}

/** The reply may still be on its way to the transcript when Stop runs: look again briefly (rare; ≤ 300 ms). */
async function finalReply(transcript: string): Promise<{ text: string; uuid: string } | null> {
  for (let attempt = 0; ; attempt++) {
    const found = lastAssistantReply(transcript);
    if (found || attempt === 2) return found;
    await new Promise((r) => setTimeout(r, 150));
  }
}

const TAIL_BYTES = 512 * 1024;

/**
 * The assistant's last reply in a transcript: the text of the newest main-thread assistant line that has
 * text, joined with the other lines of the same API response. Reads only the file's tail.
 */
export function lastAssistantReply(transcript: string): { text: string; uuid: string } | null {
  let fd: number;
  try {
    fd = openSync(transcript, 'r');
  } catch {
    return null;
  }
  let text: string;
  try {
    const size = fstatSync(fd).size;
    const len = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    text = buf.toString('utf8');
    if (len < size) text = text.slice(text.indexOf('\n') + 1); // the first line is cut
  } finally {
    closeSync(fd);
  }
  const lines = text.split('\n');
  let apiId: string | undefined;
  let uuid: string | undefined;
  const parts: string[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    let d: Record<string, unknown>;
    try {
      d = JSON.parse(lines[i]!) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (d.isSidechain === true) continue;
    if (d.type === 'user') {
      if (apiId !== undefined) break; // the reply starts after the last user line
      // A prompt before any reply text: this turn's reply is not written yet — never take the previous turn's.
      if (isPrompt(d)) return null;
      continue;
    }
    if (d.type !== 'assistant') continue;
    const msg = obj(d.message);
    const id = str(msg?.id);
    const texts = (arr(msg?.content) ?? [])
      .map(obj)
      .filter((b) => b?.type === 'text' && typeof b.text === 'string')
      .map((b) => b!.text as string);
    if (apiId === undefined) {
      if (texts.length === 0) continue;
      apiId = id ?? '';
      uuid = str(d.uuid);
    } else if (id !== apiId) break;
    parts.unshift(...texts);
  }
  return uuid ? { text: parts.join('\n\n'), uuid } : null;
}

/** A user line the person typed (not a tool result, not Claude Code's own meta line). */
function isPrompt(d: Record<string, unknown>): boolean {
  if (d.isMeta === true) return false;
  const content = obj(d.message)?.content;
  if (typeof content === 'string') return true;
  const blocks = (arr(content) ?? []).map(obj);
  return blocks.some((b) => b?.type === 'text') && !blocks.some((b) => b?.type === 'tool_result');
}

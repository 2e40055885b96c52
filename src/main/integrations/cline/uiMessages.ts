/**
 * Cline's `ui_messages.json` (an array of ClineMessage) as Retrace messages, the way Cline's own chat view
 * shows them: the first message is the task prompt (a user message, whether saved as `say:"task"` or
 * `say:"text"`), user feedback is the person, Cline's text, reasoning and completion are the assistant, tool
 * and command steps are tool messages (a command's output folded into it, as Cline's view does), and every
 * `lastCheckpointHash` is a checkpoint. Request bookkeeping (`api_req_started` …) is left out.
 *
 * Nothing is hidden. `conversationHistoryDeletedRange` only marks what Cline dropped from the model's
 * context to save tokens; its chat still shows those messages. A rewind in Cline ("restore task" to a
 * checkpoint) truncates this file, so an abandoned branch never remains in it to hide.
 *
 * `partial: true` is how a message looked while it streamed; Cline rewrites it in place (same `ts`) when it
 * is done, but often leaves the flag on finished texts followed by a tool call. A partial entry superseded
 * by a later one with the same `ts` and kind is dropped; any other is kept, and marked `partial` only when
 * nothing follows it (it may be an unfinished stream). Pure.
 */
import type { MessageMeta, Role } from '../../../shared/model';

export interface ClineMessage {
  ts: number;
  type: 'ask' | 'say';
  ask?: string;
  say?: string;
  text?: string;
  images?: string[];
  partial?: boolean;
  lastCheckpointHash?: string;
  isCheckpointCheckedOut?: boolean;
  conversationHistoryIndex?: number;
  conversationHistoryDeletedRange?: [number, number];
}

export interface ClineImportMessage {
  role: Role;
  text: string;
  ts: string;
  /** Index in `ClineConversation.list` of the entry this message comes from. */
  sourceIndex: number;
  /** Cline's checkpoint commit, when the message carries one. */
  checkpoint: string | null;
  meta: MessageMeta;
}

export interface ClineConversation {
  /** The settled entries (timestamped, superseded streaming states dropped) the messages index into. */
  list: ClineMessage[];
  messages: ClineImportMessage[];
  /** The first prompt (for the title). */
  task: string | null;
  warnings: string[];
}

const SKIPPED_SAY = new Set([
  'api_req_started',
  'api_req_finished',
  'api_req_retried',
  'deleted_api_reqs',
  'info',
  'shell_integration_warning',
  'task_progress',
  'load_mcp_documentation',
]);
const SKIPPED_ASK = new Set([
  'resume_task',
  'resume_completed_task',
  'api_req_failed',
  'condense',
  'report_bug',
  'completion_result', // an empty one: the button that ends the task
]);

/** Timestamped entries, without streaming states that a later entry of the same `ts` and kind replaced. */
export function settleMessages(raw: unknown[]): ClineMessage[] {
  const list = raw.filter(
    (m): m is ClineMessage => !!m && typeof m === 'object' && typeof (m as ClineMessage).ts === 'number',
  );
  const key = (m: ClineMessage) => `${m.ts}:${m.type}:${m.type === 'say' ? m.say : m.ask}`;
  const lastAt = new Map<string, number>();
  list.forEach((m, i) => lastAt.set(key(m), i));
  return list.filter((m, i) => !m.partial || lastAt.get(key(m)) === i);
}

export function parseClineMessages(raw: unknown): ClineConversation {
  const warnings: string[] = [];
  if (!Array.isArray(raw))
    return { list: [], messages: [], task: null, warnings: ['ui_messages.json does not hold a list'] };
  const timed = raw.filter((m) => !!m && typeof m === 'object' && typeof (m as ClineMessage).ts === 'number');
  if (timed.length < raw.length) warnings.push(`skipped ${raw.length - timed.length} entr(ies) without a timestamp`);
  const list = settleMessages(raw);

  const unknown: Record<string, number> = {};
  const out: ClineImportMessage[] = [];
  let task: string | null = null;
  const partialAt: number[] = [];
  for (const [i, m] of list.entries()) {
    const kind = m.type === 'say' ? m.say : m.ask;
    const hash =
      typeof m.lastCheckpointHash === 'string' && /^[0-9a-f]{40}$/.test(m.lastCheckpointHash)
        ? m.lastCheckpointHash
        : null;
    // Cline's chat view takes the first message as the task, whichever `say` it was saved with.
    const isTask = i === 0 && m.type === 'say' && (m.say === 'task' || m.say === 'text');
    if (kind === 'command_output' && !hash) {
      const host = out.at(-1);
      if (host?.meta.tool === 'command') {
        const chunk = m.text ?? '';
        if (chunk.trim() !== '') host.text = `${host.text}\n${chunk}`;
        continue;
      }
    }
    const mapped = isTask ? { role: 'user' as Role, text: withImages(m), meta: {} } : mapMessage(m);
    if (mapped === undefined) {
      const key = `${m.type}:${kind ?? '?'}`;
      if (!(m.type === 'say' ? SKIPPED_SAY : SKIPPED_ASK).has(kind ?? '')) unknown[key] = (unknown[key] ?? 0) + 1;
      if (!hash) continue;
    }
    if (isTask) task = m.text ?? null;
    const { role, text, meta } = mapped ?? { role: 'system' as Role, text: 'Checkpoint', meta: {} };
    if (!hash && text.trim() === '') continue;
    if (m.partial) partialAt.push(out.length);
    out.push({
      role,
      text: text.trim() === '' ? 'Checkpoint' : text,
      ts: new Date(m.ts).toISOString(),
      sourceIndex: i,
      checkpoint: hash,
      meta: { ...meta, sourceId: String(m.ts) },
    });
  }
  // Only a partial with nothing said after it can be an unfinished stream (checkpoint notes do not count).
  const lastSaid = out.findLastIndex((m) => m.role !== 'system');
  for (const k of partialAt) if (k >= lastSaid) out[k]!.meta.partial = true;
  for (const [k, n] of Object.entries(unknown)) warnings.push(`skipped ${n} message(s) of unknown kind ${k}`);
  return { list, messages: out, task, warnings };
}

function withImages(m: ClineMessage): string {
  const text = m.text ?? '';
  return m.images && m.images.length > 0 ? `${text}\n[${m.images.length} image(s)]` : text;
}

/** undefined: a message that is not shown. */
function mapMessage(m: ClineMessage): { role: Role; text: string; meta: MessageMeta } | undefined {
  const text = m.text ?? '';
  if (m.type === 'say') {
    switch (m.say) {
      case 'task':
      case 'user_feedback':
        return { role: 'user', text: withImages(m), meta: {} };
      case 'text':
      case 'completion_result':
        return { role: 'assistant', text, meta: {} };
      case 'reasoning':
        return { role: 'assistant', text, meta: { reasoning: true } };
      case 'tool':
        return toolMessage(text);
      case 'command':
        return { role: 'tool', text: `command ${text}`, meta: { tool: 'command', command: text } };
      case 'command_output':
        return { role: 'tool', text, meta: { tool: 'command_output' } };
      case 'checkpoint_created':
        return { role: 'system', text: 'Checkpoint', meta: {} };
      case 'error':
      case 'diff_error':
      case 'clineignore_error':
        return { role: 'system', text: `${m.say}: ${text}`, meta: {} };
      case 'user_feedback_diff':
        return { role: 'user', text, meta: {} };
      case 'browser_action':
      case 'browser_action_launch':
      case 'use_mcp_server':
      case 'mcp_server_request_started':
        return { role: 'tool', text: `${m.say} ${text}`.trim(), meta: { tool: m.say } };
      default:
        return undefined;
    }
  }
  switch (m.ask) {
    case 'followup':
      return { role: 'assistant', text: jsonField(text, 'question') ?? text, meta: {} };
    case 'plan_mode_respond':
      return { role: 'assistant', text: jsonField(text, 'response') ?? text, meta: {} };
    case 'tool':
      return toolMessage(text);
    case 'command':
      return { role: 'tool', text: `command ${text}`, meta: { tool: 'command', command: text } };
    case 'command_output':
      return { role: 'tool', text, meta: { tool: 'command_output' } };
    case 'completion_result':
      return text.trim() ? { role: 'assistant', text, meta: {} } : undefined;
    default:
      return undefined;
  }
}

function toolMessage(text: string): { role: Role; text: string; meta: MessageMeta } {
  let tool = 'tool';
  let path: string | undefined;
  try {
    const o = JSON.parse(text) as { tool?: unknown; path?: unknown };
    if (typeof o.tool === 'string') tool = o.tool;
    if (typeof o.path === 'string') path = o.path;
  } catch {
    return { role: 'tool', text, meta: { tool } };
  }
  const meta: MessageMeta = { tool };
  if (path) meta.file = path;
  return { role: 'tool', text: path ? `${tool} ${path}` : tool, meta };
}

function jsonField(text: string, field: string): string | undefined {
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    return typeof o[field] === 'string' ? (o[field] as string) : undefined;
  } catch {
    return undefined;
  }
}

/** Cline's name for a workspace's shadow repository folder (FORMATS.md): a 31-polynomial hash, unsigned, decimal. */
export function clineCwdHash(cwd: string): string {
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = (h * 31 + cwd.charCodeAt(i)) >>> 0;
  return String(h);
}

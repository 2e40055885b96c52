/**
 * Cline's `ui_messages.json` (an array of ClineMessage) as Retrace messages: the task prompt and user
 * feedback as user messages, Cline's text and completion as assistant messages, tool and command steps as
 * tool messages, and every `lastCheckpointHash` as a checkpoint. Streaming fragments (`partial`) and
 * request bookkeeping (`api_req_started` …) are left out. Messages whose API-history index lies in the
 * task's `conversationHistoryDeletedRange` (dropped from the model's context) come in hidden. Pure.
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
  hidden: boolean;
  /** Cline's checkpoint commit, when the message carries one. */
  checkpoint: string | null;
  meta: MessageMeta;
}

export interface ClineConversation {
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
  'reasoning',
  'info',
  'shell_integration_warning',
  'task_progress',
  'load_mcp_documentation',
]);
const SKIPPED_ASK = new Set(['resume_task', 'resume_completed_task', 'api_req_failed', 'condense', 'report_bug']);

export function parseClineMessages(raw: unknown): ClineConversation {
  const warnings: string[] = [];
  if (!Array.isArray(raw)) return { messages: [], task: null, warnings: ['ui_messages.json does not hold a list'] };
  const list = raw.filter(
    (m): m is ClineMessage => !!m && typeof m === 'object' && typeof (m as ClineMessage).ts === 'number',
  );
  if (list.length < raw.length) warnings.push(`skipped ${raw.length - list.length} entr(ies) without a timestamp`);

  let deleted: [number, number] | null = null;
  for (const m of list) {
    const r = m.conversationHistoryDeletedRange;
    if (Array.isArray(r) && r.length === 2 && typeof r[0] === 'number' && typeof r[1] === 'number')
      deleted = [r[0], r[1]];
  }
  const unknown: Record<string, number> = {};
  const out: ClineImportMessage[] = [];
  let task: string | null = null;
  let partials = 0;
  for (const m of list) {
    if (m.partial) {
      partials++;
      continue;
    }
    const kind = m.type === 'say' ? m.say : m.ask;
    const hash =
      typeof m.lastCheckpointHash === 'string' && /^[0-9a-f]{40}$/.test(m.lastCheckpointHash)
        ? m.lastCheckpointHash
        : null;
    const mapped = mapMessage(m);
    if (mapped === undefined) {
      const key = `${m.type}:${kind ?? '?'}`;
      if (!(m.type === 'say' ? SKIPPED_SAY : SKIPPED_ASK).has(kind ?? '')) unknown[key] = (unknown[key] ?? 0) + 1;
      if (!hash) continue;
    }
    if (m.type === 'say' && m.say === 'task' && task === null) task = m.text ?? null;
    const { role, text, meta } = mapped ?? { role: 'system' as Role, text: 'Checkpoint', meta: {} };
    if (!hash && text.trim() === '') continue;
    const idx = m.conversationHistoryIndex;
    const hidden = deleted !== null && typeof idx === 'number' && idx >= deleted[0] && idx <= deleted[1];
    out.push({
      role,
      text: text.trim() === '' ? 'Checkpoint' : text,
      ts: new Date(m.ts).toISOString(),
      hidden,
      checkpoint: hash,
      meta: { ...meta, sourceId: String(m.ts) },
    });
  }
  if (partials > 0) warnings.push(`skipped ${partials} partial (streaming) message(s)`);
  for (const [k, n] of Object.entries(unknown)) warnings.push(`skipped ${n} message(s) of unknown kind ${k}`);
  const hiddenCount = out.filter((m) => m.hidden).length;
  if (hiddenCount > 0)
    warnings.push(
      `${hiddenCount} message(s) were dropped from Cline's context (conversationHistoryDeletedRange) and come in hidden`,
    );
  return { messages: out, task, warnings };
}

/** undefined: a message that is not shown. */
function mapMessage(m: ClineMessage): { role: Role; text: string; meta: MessageMeta } | undefined {
  const text = m.text ?? '';
  const withImages = m.images && m.images.length > 0 ? `${text}\n[${m.images.length} image(s)]` : text;
  if (m.type === 'say') {
    switch (m.say) {
      case 'task':
      case 'user_feedback':
        return { role: 'user', text: withImages, meta: {} };
      case 'text':
      case 'completion_result':
        return { role: 'assistant', text, meta: {} };
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

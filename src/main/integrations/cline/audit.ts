/**
 * Raw counts of a Cline task for the conformance tool, read straight from `ui_messages.json` without the
 * importer's code, so the two can be checked against each other through each imported message's
 * `meta.sourceId` (the Cline `ts`):
 * - `typedPrompts`: what the person typed — the task (the first message) and each `say:"user_feedback"`
 *   that holds text or images;
 * - `newestMessage`: the `ts` of the newest message Cline's chat shows as conversation (replies, reasoning,
 *   prompts, tool and command steps; not request bookkeeping, checkpoints, command output or an empty
 *   completion prompt);
 * - `edits`: the file edits that took effect (`newFileCreated` / `editedExistingFile` tool messages, less
 *   those Cline's next request reports as denied, skipped or failed, those cut off mid-stream, and questions
 *   the person answered with feedback or never answered).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RetraceError } from '../../../shared/errors';

export interface ClineAudit {
  typedPrompts: number;
  newestMessage: string | null;
  edits: { id: string; path: string }[];
}

interface Entry {
  ts: number;
  type: string;
  say?: string;
  ask?: string;
  text?: string;
  images?: unknown[];
  partial?: boolean;
}

const CONVERSATION_SAY = new Set([
  'task',
  'text',
  'reasoning',
  'user_feedback',
  'completion_result',
  'tool',
  'command',
  'error',
  'browser_action',
  'browser_action_launch',
  'use_mcp_server',
]);
const CONVERSATION_ASK = new Set(['followup', 'plan_mode_respond', 'tool', 'command', 'completion_result']);

export function auditClineTask(taskDir: string): ClineAudit {
  const file = join(taskDir, 'ui_messages.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new RetraceError('E_IMPORT', `cannot read ${file}: ${(e as Error).message}`);
  }
  if (!Array.isArray(raw)) throw new RetraceError('E_IMPORT', `${file} does not hold a list`);
  const all = raw.filter((e): e is Entry => !!e && typeof e === 'object' && typeof (e as Entry).ts === 'number');
  // A streaming state that a later entry of the same ts and kind replaced is not a message of its own.
  const entries = all.filter(
    (e, i) =>
      !e.partial ||
      !all.slice(i + 1).some((l) => l.ts === e.ts && l.type === e.type && l.say === e.say && l.ask === e.ask),
  );

  let typedPrompts = 0;
  let newestMessage: string | null = null;
  const edits: { id: string; path: string }[] = [];
  entries.forEach((e, i) => {
    const first = i === 0 && e.type === 'say' && (e.say === 'task' || e.say === 'text');
    const typed = (e.text ?? '').trim() !== '' || (e.images?.length ?? 0) > 0;
    if (typed && (first || (e.type === 'say' && e.say === 'user_feedback'))) typedPrompts++;
    const shown = e.type === 'say' ? CONVERSATION_SAY.has(e.say ?? '') : CONVERSATION_ASK.has(e.ask ?? '');
    if ((first || shown) && (e.text ?? '').trim() !== '') newestMessage = String(e.ts);
    const path = editPath(e);
    if (path !== null && !e.partial && tookEffect(entries, i, path)) edits.push({ id: String(e.ts), path });
  });
  return { typedPrompts, newestMessage, edits };
}

function editPath(e: Entry): string | null {
  if ((e.type === 'say' ? e.say : e.ask) !== 'tool') return null;
  try {
    const o = JSON.parse(e.text ?? '') as { tool?: unknown; path?: unknown };
    const isEdit = o.tool === 'newFileCreated' || o.tool === 'editedExistingFile';
    return isEdit && typeof o.path === 'string' ? o.path : null;
  } catch {
    return null;
  }
}

function tookEffect(entries: Entry[], i: number, path: string): boolean {
  const later = entries.slice(i + 1);
  const request = later.find((e) => e.type === 'say' && e.say === 'api_req_started');
  let text = '';
  try {
    text = String((JSON.parse(request?.text ?? '{}') as { request?: unknown }).request ?? '');
  } catch {
    // an unreadable request says nothing either way
  }
  const name = path.split(/[\\/]/).pop()!;
  const section = text.split(/^(?=\[[a-z_]+ for ')/m).find((s) => {
    const p = /^\[[a-z_]+ for '([^'\n]*)'\] Result:/.exec(s)?.[1];
    return p !== undefined && p.split(/[\\/]/).pop() === name && (p.endsWith(path) || path.endsWith(p));
  });
  if (section !== undefined)
    return !/\] Result:\n(?:The user denied this operation|Skipping tool|Error|The tool execution failed)/.test(
      section,
    );
  if (entries[i]!.type === 'say') return true;
  const answer = later.find((e) => !(e.type === 'ask' && /^resume_/.test(e.ask ?? '')));
  return answer !== undefined && !(answer.type === 'say' && answer.say === 'user_feedback');
}

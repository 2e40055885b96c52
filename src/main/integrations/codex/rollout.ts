/**
 * A Codex CLI rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`) read line by line into the items a
 * timeline shows. Each line is `{timestamp, type, payload}` (FORMATS.md). Codex writes most things twice — the
 * model's view (`response_item`) and the UI's (`event_msg`) — so each kind is taken from one side only:
 * typed prompts and replies from `event_msg` (the model's copy of a prompt carries injected context), tool calls
 * and reasoning from `response_item`. Calls and their results are paired by `call_id`.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { TokenUsage } from '../../../shared/model';
import { tokenUsage } from '../details';

/** What the model side of an item says about it: the model (turn_context) and the request's tokens (token_count). */
export interface ModelDetails {
  model?: string;
  usage?: TokenUsage;
}

export type RolloutItem = (
  | { kind: 'prompt'; ts: string; text: string }
  | { kind: 'reply'; ts: string; text: string }
  | { kind: 'reasoning'; ts: string; text: string }
  | { kind: 'shell'; ts: string; callId: string; command: string; output: string | null; exitCode: number | null }
  | { kind: 'patch'; ts: string; callId: string; input: string; output: string | null; applied: boolean | null }
  | { kind: 'tool'; ts: string; callId: string; name: string; input: string; output: string | null }
  | { kind: 'note'; ts: string; text: string }
  | { kind: 'rollback'; ts: string; turns: number }
) &
  ModelDetails;

export interface Rollout {
  id: string | null;
  cwd: string | null;
  cliVersion: string | null;
  items: RolloutItem[];
  warnings: string[];
}

type Json = Record<string, unknown>;

export async function readRollout(file: string): Promise<Rollout> {
  const out: Rollout = { id: null, cwd: null, cliVersion: null, items: [], warnings: [] };
  const calls = new Map<string, Extract<RolloutItem, { callId: string }>>();
  const fallbackPrompts: RolloutItem[] = [];
  const fallbackReplies: RolloutItem[] = [];
  let sawUserEvent = false;
  let sawAgentEvent = false;
  let model: string | null = null;
  /**
   * A request's token counts, until the first item of its response: Codex writes the token_count as a response
   * completes, before that response's items, then once more after them (the same totals: skipped).
   */
  let pendingUsage: TokenUsage | null = null;
  let countedTotal: unknown = null;
  const fromModel = <T extends RolloutItem>(item: T): T => {
    if (model) item.model = model;
    if (pendingUsage) item.usage = pendingUsage;
    pendingUsage = null;
    return item;
  };
  let lineNo = 0;
  let bad = 0;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    let rec: Json;
    try {
      rec = JSON.parse(line) as Json;
    } catch {
      bad++;
      continue;
    }
    const ts = typeof rec.timestamp === 'string' ? rec.timestamp : '';
    const p = (rec.payload ?? {}) as Json;
    if (lineNo === 1 && rec.type !== 'session_meta') out.warnings.push('the first line is not session_meta');
    switch (rec.type) {
      case 'session_meta':
        out.id = str(p.id);
        out.cwd = str(p.cwd);
        out.cliVersion = str(p.cli_version);
        break;
      case 'turn_context':
        out.cwd ??= str(p.cwd);
        model = str(p.model) ?? model;
        break;
      case 'compacted':
        out.items.push({
          kind: 'note',
          ts,
          text: `Conversation compacted${str(p.message) ? `: ${str(p.message)}` : ''}`,
        });
        break;
      case 'event_msg':
        onEvent(p, ts);
        break;
      case 'response_item':
        onResponse(p, ts);
        break;
    }
  }
  if (bad > 0) out.warnings.push(`${bad} line(s) are not JSON and were skipped (a truncated last line?)`);
  // Older rollouts have no event_msg copies: take prompts and replies from the model's side then.
  if (!sawUserEvent) out.items.push(...fallbackPrompts);
  if (!sawAgentEvent) out.items.push(...fallbackReplies);
  if (!sawUserEvent || !sawAgentEvent) out.items.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
  return out;

  function onEvent(p: Json, ts: string): void {
    switch (p.type) {
      case 'user_message':
        sawUserEvent = true;
        out.items.push({ kind: 'prompt', ts, text: str(p.message) ?? '' });
        break;
      case 'agent_message':
        sawAgentEvent = true;
        out.items.push(fromModel({ kind: 'reply', ts, text: str(p.message) ?? '' }));
        break;
      case 'token_count': {
        const info = (p.info ?? {}) as Json;
        const total = ((info.total_token_usage ?? {}) as Json).total_tokens;
        if (total !== undefined && total === countedTotal) break;
        countedTotal = total;
        const last = (info.last_token_usage ?? null) as Json | null;
        const usage =
          last &&
          tokenUsage({
            input: last.input_tokens,
            output: last.output_tokens,
            cacheRead: last.cached_input_tokens,
            cacheWrite: undefined,
            reasoning: last.reasoning_output_tokens,
            total: last.total_tokens,
          });
        if (usage) pendingUsage = usage;
        break;
      }
      case 'turn_aborted':
        out.items.push({ kind: 'note', ts, text: `Turn aborted${str(p.reason) ? ` (${str(p.reason)})` : ''}` });
        break;
      case 'thread_rolled_back':
        out.items.push({ kind: 'rollback', ts, turns: typeof p.num_turns === 'number' ? p.num_turns : 1 });
        break;
      case 'exec_command_end': {
        const call = calls.get(str(p.call_id) ?? '');
        if (call?.kind === 'shell') {
          call.output ??= str(p.aggregated_output) ?? str(p.formatted_output);
          if (typeof p.exit_code === 'number') call.exitCode = p.exit_code;
        }
        break;
      }
      case 'patch_apply_end': {
        const call = calls.get(str(p.call_id) ?? '');
        if (call?.kind === 'patch' && typeof p.success === 'boolean') call.applied = p.success;
        break;
      }
    }
  }

  function onResponse(p: Json, ts: string): void {
    switch (p.type) {
      case 'message': {
        const text = contentText(p.content);
        if (p.role === 'user' && text && !isInjectedContext(text)) fallbackPrompts.push({ kind: 'prompt', ts, text });
        if (p.role === 'assistant' && text) fallbackReplies.push(fromModel({ kind: 'reply', ts, text }));
        break;
      }
      case 'reasoning': {
        const text = Array.isArray(p.summary)
          ? (p.summary as Json[])
              .map((s) => str(s.text))
              .filter(Boolean)
              .join('\n')
          : '';
        if (text) out.items.push(fromModel({ kind: 'reasoning', ts, text }));
        break;
      }
      case 'function_call':
      case 'custom_tool_call':
        addCall(p, ts);
        break;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const call = calls.get(str(p.call_id) ?? '');
        if (!call) break;
        const { text, exitCode } = outputOf(p.output);
        call.output = text;
        if (call.kind === 'shell') call.exitCode ??= exitCode;
        if (call.kind === 'patch' && call.applied === null) call.applied = patchSucceeded(text, exitCode);
        break;
      }
    }
  }

  function addCall(p: Json, ts: string): void {
    const callId = str(p.call_id) ?? `call-${out.items.length}`;
    const name = str(p.name) ?? 'tool';
    const raw = typeof p.input === 'string' ? p.input : (str(p.arguments) ?? '');
    let item: Extract<RolloutItem, { callId: string }>;
    const patch = name === 'apply_patch' ? patchInput(raw) : shellPatch(raw);
    if (patch !== null) item = { kind: 'patch', ts, callId, input: patch, output: null, applied: null };
    else if (/^(shell|shell_command|exec_command|local_shell)$/.test(name))
      item = { kind: 'shell', ts, callId, command: shellCommand(raw), output: null, exitCode: null };
    else item = { kind: 'tool', ts, callId, name, input: raw, output: null };
    calls.set(callId, item);
    out.items.push(fromModel(item));
  }
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return (content as Json[])
    .map((c) => str(c.text))
    .filter((t): t is string => t !== null)
    .join('\n');
}

/** Codex prepends its own context to the model's first user message; the person typed none of it. */
function isInjectedContext(text: string): boolean {
  return /^\s*<(environment_context|user_instructions|user_shell_command)>/.test(text) || /^# AGENTS\.md/.test(text);
}

/** An apply_patch call's patch: the raw input, or `{"input": …}` in function-call form. */
function patchInput(raw: string): string | null {
  if (raw.includes('*** Begin Patch')) {
    const j = parseJson(raw);
    return typeof j?.input === 'string' ? j.input : raw;
  }
  return null;
}

/** A shell call that runs apply_patch (older Codex: `["apply_patch", PATCH]` or a heredoc). */
function shellPatch(raw: string): string | null {
  if (!raw.includes('*** Begin Patch')) return null;
  const j = parseJson(raw);
  const cmd = j?.command;
  if (Array.isArray(cmd)) {
    const i = cmd.indexOf('apply_patch');
    if (i >= 0 && typeof cmd[i + 1] === 'string') return cmd[i + 1] as string;
    const script = cmd.find((c): c is string => typeof c === 'string' && c.includes('*** Begin Patch'));
    if (script) return heredoc(script);
  }
  if (typeof cmd === 'string') return heredoc(cmd);
  return null;
}

function heredoc(script: string): string | null {
  const m = /apply_patch\s*<<\s*['"]?(\w+)['"]?\n([\s\S]*?)\n\1\b/.exec(script);
  return m ? m[2]! : null;
}

function shellCommand(raw: string): string {
  const j = parseJson(raw);
  const cmd = j?.command ?? j?.cmd;
  if (Array.isArray(cmd)) {
    // ["bash", "-lc", "script"] shows as the script
    const last = cmd.at(-1);
    return cmd.length >= 3 && /sh$/.test(String(cmd[0])) && typeof last === 'string' ? last : cmd.join(' ');
  }
  return typeof cmd === 'string' ? cmd : raw;
}

function outputOf(v: unknown): { text: string; exitCode: number | null } {
  const text = typeof v === 'string' ? v : JSON.stringify(v ?? '');
  const j = parseJson(text);
  if (j && typeof j.output === 'string') {
    const meta = (j.metadata ?? {}) as Json;
    return { text: j.output, exitCode: typeof meta.exit_code === 'number' ? meta.exit_code : null };
  }
  const m = /^Exit code: (-?\d+)/.exec(text);
  return { text, exitCode: m ? Number(m[1]) : null };
}

function patchSucceeded(text: string, exitCode: number | null): boolean {
  if (exitCode !== null) return exitCode === 0 && !/verification failed/i.test(text);
  return /^Success\b/.test(text.trim());
}

function parseJson(s: string): Json | null {
  try {
    const v = JSON.parse(s) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

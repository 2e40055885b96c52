/**
 * Transcript lines → the messages Retrace shows: assistant lines of one API response (same message.id)
 * become one message, each tool result a tool message with its call's summary, lines nobody typed become
 * system notes (the compaction summary among them), slash-command markup reads as the command, terminal
 * colour codes are dropped. Pure.
 */
import type { MessageMeta } from '../../../shared/model';
import { capText, stripAnsi, tokenUsage } from '../details';
import { arr, obj, str } from './jsonl';
import { isCommandOutput, readableCommand, readableCommandOutput } from './labels';
import { claudeToolDetail } from './toolDetail';
import type { ConversationMessage, ConvLine, ToolUse } from './types';

export const RESULT_EXCERPT = 1000;

function contentOf(line: ConvLine): unknown {
  return obj(line.entry.data.message)?.content;
}

export interface ToMessagesOptions {
  /**
   * A tool message, final as soon as it is made, and the tool_result block it came from: what to keep in its
   * place (an import keeps it packed and lets the block's text go: conversation.ts).
   */
  settleTool?: (m: ConversationMessage, block: Record<string, unknown>) => ConversationMessage;
  /** Called every TICK_LINES lines (an import collects its garbage then: memory.ts). */
  tick?: () => void;
}

const TICK_LINES = 4000;

/**
 * Messages of `lines` (in the order written). `hiddenOf` tells which lines are off the timeline; lines of one
 * response merge only with lines on the same side.
 */
export function toMessages(
  lines: ConvLine[],
  toolUses: Map<string, ToolUse>,
  hiddenOf: (uuid: string) => boolean,
  opts: ToMessagesOptions = {},
): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  /** Tool messages already in their final form (texts stripped, kept as settleTool returned them). */
  const settled = new Set<ConversationMessage>();
  let seen = 0;
  const assistantById = new Map<string, { msg: ConversationMessage; parts: string[] }>();
  const thinkingOf = new Map<ConversationMessage, string[]>();
  const callsOf = new Map<ConversationMessage, string[]>();
  const answered = answeredCalls(lines, hiddenOf);
  for (const line of lines) {
    if (opts.tick && ++seen % TICK_LINES === 0) opts.tick();
    const d = line.entry.data;
    const hidden = hiddenOf(line.uuid);
    const base = { ts: line.ts, hidden, uuids: [line.uuid] };
    if (line.type === 'assistant') {
      const apiId = str(obj(d.message)?.id);
      const key = apiId ? `${hidden ? 'h' : 'v'}:${apiId}` : undefined;
      const parts = assistantParts(line, toolUses);
      const open = key ? assistantById.get(key) : undefined;
      if (open) {
        open.parts.push(...parts);
        open.msg.uuids.push(line.uuid);
        open.msg.meta.sourceId = line.uuid;
        open.msg.text = open.parts.join('\n\n');
        readResponse(line, open.msg.meta, thinkingOf.get(open.msg)!, callsOf.get(open.msg)!);
        continue;
      }
      const msg: ConversationMessage = {
        ...base,
        role: 'assistant',
        kind: 'assistant',
        text: parts.join('\n\n'),
        meta: { sourceId: line.uuid },
      };
      thinkingOf.set(msg, []);
      callsOf.set(msg, []);
      readResponse(line, msg.meta, thinkingOf.get(msg)!, callsOf.get(msg)!);
      out.push(msg);
      if (key) assistantById.set(key, { msg, parts });
    } else if (line.type === 'user') {
      const content = contentOf(line);
      const notTyped = d.isMeta === true || d.isCompactSummary === true;
      const userMessage = (text: string) => {
        const system = notTyped || isCommandOutput(text);
        out.push({
          ...base,
          role: system ? 'system' : 'user',
          kind: system ? 'system' : 'prompt',
          text: system ? readableCommandOutput(text) : readableCommand(text),
          meta: { sourceId: line.uuid },
        });
      };
      if (typeof content === 'string') {
        userMessage(content);
        continue;
      }
      const texts: string[] = [];
      for (const b of arr(content) ?? []) {
        const block = obj(b);
        if (!block) continue;
        if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
        else if (block.type === 'image') texts.push('[image]');
        else if (block.type === 'tool_result') {
          const m = toolMessage(line, block, toolUses, base);
          m.text = stripAnsi(m.text);
          if (!opts.settleTool || m.text.trim() === '') out.push(m);
          else {
            const kept = opts.settleTool(m, block);
            settled.add(kept);
            out.push(kept);
          }
        }
      }
      if (texts.length > 0) userMessage(texts.join('\n'));
    } else if (line.type === 'system') {
      const text = str(d.content);
      if (text && text.trim())
        out.push({ ...base, role: 'system', kind: 'system', text, meta: { sourceId: line.uuid } });
    }
    // attachment lines are part of the graph but carry nothing to show.
  }
  for (const [msg, thinking] of thinkingOf) if (thinking.length > 0) msg.meta.thinking = capText(thinking.join('\n\n'));
  for (const [msg, ids] of callsOf) {
    // A call with a result message shows there, with its output; one without (interrupted) shows here.
    const calls = ids
      .filter((id) => !answered.has(`${msg.hidden ? 'h' : 'v'}:${id}`))
      .flatMap((id) => {
        const use = toolUses.get(id);
        return use ? [claudeToolDetail(id, use.name, use.input)] : [];
      });
    if (calls.length > 0) msg.meta.toolCalls = calls;
  }
  for (const m of out) if (!settled.has(m)) m.text = stripAnsi(m.text);
  return out.filter((m) => settled.has(m) || m.text.trim() !== '');
}

/** One line of a model response: its model, usage (the last line's counts are the response's), thinking, calls. */
function readResponse(line: ConvLine, meta: MessageMeta, thinking: string[], calls: string[]): void {
  const d = line.entry.data;
  const message = obj(d.message);
  const model = str(message?.model);
  if (model && model !== '<synthetic>') meta.model = model;
  const u = obj(message?.usage);
  const usage =
    u &&
    tokenUsage({
      input: u.input_tokens,
      output: u.output_tokens,
      cacheRead: u.cache_read_input_tokens,
      cacheWrite: u.cache_creation_input_tokens,
      reasoning: undefined,
      total: undefined,
    });
  if (usage) meta.usage = usage;
  if (typeof d.costUSD === 'number') meta.costUsd = d.costUSD;
  for (const b of arr(message?.content) ?? []) {
    const block = obj(b);
    if (block?.type === 'thinking' && typeof block.thinking === 'string' && block.thinking.trim())
      thinking.push(
        typeof block.full_length === 'number' ? capText(block.thinking, block.full_length) : block.thinking,
      );
    else if (block?.type === 'redacted_thinking') thinking.push('[redacted thinking]');
    else if (block?.type === 'tool_use' && typeof block.id === 'string') calls.push(block.id);
  }
}

/** Tool calls with a result among `lines`, keyed by side (a hidden result does not answer a visible call). */
function answeredCalls(lines: ConvLine[], hiddenOf: (uuid: string) => boolean): Set<string> {
  const out = new Set<string>();
  for (const line of lines) {
    if (line.type !== 'user') continue;
    for (const b of arr(contentOf(line)) ?? []) {
      const block = obj(b);
      if (block?.type === 'tool_result' && typeof block.tool_use_id === 'string')
        out.add(`${hiddenOf(line.uuid) ? 'h' : 'v'}:${block.tool_use_id}`);
    }
  }
  return out;
}

function toolMessage(
  line: ConvLine,
  block: Record<string, unknown>,
  toolUses: Map<string, ToolUse>,
  base: { ts: string; hidden: boolean; uuids: string[] },
): ConversationMessage {
  const toolUseId = str(block.tool_use_id) ?? '';
  const use = toolUses.get(toolUseId);
  const summary = use?.summary ?? { tool: 'tool', text: 'tool result' };
  const full = resultText(block.content);
  const excerpt = cut(full, RESULT_EXCERPT);
  const head = block.is_error === true ? `${summary.text} (error)` : summary.text;
  const meta: MessageMeta = { tool: summary.tool, sourceId: line.uuid };
  if (summary.file) meta.file = summary.file;
  if (summary.command) meta.command = summary.command;
  const output = typeof block.full_length === 'number' ? capText(full, block.full_length) : full;
  meta.toolCalls = [
    claudeToolDetail(toolUseId, use?.name ?? summary.tool, use?.input, {
      output, // toolCallDetail drops its colour codes
      isError: block.is_error === true,
      report: line.entry.data.toolUseResult,
    }),
  ];
  return { ...base, role: 'tool', kind: 'tool', text: excerpt ? `${head}\n${excerpt}` : head, toolUseId, meta };
}

function assistantParts(line: ConvLine, toolUses: Map<string, ToolUse>): string[] {
  const content = contentOf(line);
  if (typeof content === 'string') return content.trim() ? [content] : [];
  const parts: string[] = [];
  for (const b of arr(content) ?? []) {
    const block = obj(b);
    if (!block) continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text.trim()) parts.push(block.text);
    else if (block.type === 'tool_use') {
      const use = toolUses.get(str(block.id) ?? '');
      parts.push(`[${use?.summary.text ?? str(block.name) ?? 'tool'}]`);
    }
    // thinking blocks are the model's private notes: not part of the conversation shown.
  }
  return parts;
}

export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const b of arr(content) ?? []) {
    const block = obj(b);
    if (block?.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (block?.type === 'image') parts.push('[image]');
  }
  return parts.join('\n');
}

function cut(s: string, max: number): string {
  const t = s.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

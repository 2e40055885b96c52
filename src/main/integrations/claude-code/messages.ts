/**
 * Transcript lines → the messages Retrace shows: assistant lines of one API response (same message.id)
 * become one message, each tool result a tool message with its call's summary, lines nobody typed become
 * system notes (the compaction summary among them), slash-command markup reads as the command, terminal
 * colour codes are dropped. Pure.
 */
import type { MessageMeta } from '../../../shared/model';
import { arr, obj, str } from './jsonl';
import { isCommandOutput, readableCommand, stripAnsi } from './labels';
import type { ConversationMessage, ConvLine, ToolUse } from './types';

export const RESULT_EXCERPT = 1000;

function contentOf(line: ConvLine): unknown {
  return obj(line.entry.data.message)?.content;
}

/**
 * Messages of `lines` (in the order written). `hiddenOf` tells which lines are off the timeline; lines of one
 * response merge only with lines on the same side.
 */
export function toMessages(
  lines: ConvLine[],
  toolUses: Map<string, ToolUse>,
  hiddenOf: (uuid: string) => boolean,
): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  const assistantById = new Map<string, { msg: ConversationMessage; parts: string[] }>();
  for (const line of lines) {
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
        continue;
      }
      const msg: ConversationMessage = {
        ...base,
        role: 'assistant',
        kind: 'assistant',
        text: parts.join('\n\n'),
        meta: { sourceId: line.uuid },
      };
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
          text: system ? text : readableCommand(text),
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
        else if (block.type === 'tool_result') out.push(toolMessage(line, block, toolUses, base));
      }
      if (texts.length > 0) userMessage(texts.join('\n'));
    } else if (line.type === 'system') {
      const text = str(d.content);
      if (text && text.trim())
        out.push({ ...base, role: 'system', kind: 'system', text, meta: { sourceId: line.uuid } });
    }
    // attachment lines are part of the graph but carry nothing to show.
  }
  for (const m of out) m.text = stripAnsi(m.text);
  return out.filter((m) => m.text.trim() !== '');
}

function toolMessage(
  line: ConvLine,
  block: Record<string, unknown>,
  toolUses: Map<string, ToolUse>,
  base: { ts: string; hidden: boolean; uuids: string[] },
): ConversationMessage {
  const toolUseId = str(block.tool_use_id) ?? '';
  const summary = toolUses.get(toolUseId)?.summary ?? { tool: 'tool', text: 'tool result' };
  const excerpt = cut(resultText(block.content), RESULT_EXCERPT);
  const head = block.is_error === true ? `${summary.text} (error)` : summary.text;
  const meta: MessageMeta = { tool: summary.tool, sourceId: line.uuid };
  if (summary.file) meta.file = summary.file;
  if (summary.command) meta.command = summary.command;
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

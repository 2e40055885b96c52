/**
 * A Claude Code transcript as a conversation: the branch `claude --resume` would continue (the newest
 * non-sidechain leaf, followed up its parentUuid chain to the root), with the lines of other branches kept as
 * hidden messages, sub-agent threads kept apart (linked to the Task call that ran them), assistant lines of
 * one API response merged, and tool calls summarised. Pure: text in, data out.
 */
import type { MessageMeta, Role } from '../../../shared/model';
import { arr, obj, parseJsonlText, str, type JsonlEntry } from './jsonl';
import { summarizeToolUse, type ToolSummary } from './toolSummary';

export interface TranscriptInput {
  /** The session file (`<sessionId>.jsonl`). */
  text: string;
  /** Sub-agent files (`agent-<id>.jsonl` beside it, or `<sessionId>/subagents/agent-<id>.jsonl`). */
  agents?: { name: string; text: string }[];
}

/** A line of the conversation graph (it has a uuid). */
export interface ConvLine {
  uuid: string;
  parentUuid: string | null;
  type: string;
  isSidechain: boolean;
  ts: string;
  /** Position across all files read (main file first), for stable ordering of equal timestamps. */
  order: number;
  /** 'main' or the sub-agent file's name. */
  file: string;
  agentId?: string;
  entry: JsonlEntry;
}

export interface ToolUse {
  id: string;
  name: string;
  input: unknown;
  summary: ToolSummary;
  line: ConvLine;
}

export interface ToolResult {
  toolUseId: string;
  line: ConvLine;
  isError: boolean;
  /** The line's `toolUseResult` (what the tool reported: originalFile, structuredPatch, content, …). */
  result: unknown;
}

export interface ConversationMessage {
  role: Role;
  kind: 'prompt' | 'assistant' | 'tool' | 'system';
  text: string;
  ts: string;
  hidden: boolean;
  /** The transcript lines it came from, in order. */
  uuids: string[];
  /** Index in `mainChain` of its last line; -1 for a hidden message. */
  chainIndex: number;
  toolUseId?: string;
  meta: MessageMeta;
}

export interface SubagentThread {
  /** The agent id, or the root line's uuid for inline sidechains. */
  key: string;
  agentId?: string;
  lines: ConvLine[];
  /** The Task/Agent tool call of the main thread that ran it, when it can be told. */
  taskToolUseId?: string;
}

export interface FileHistorySnapshot {
  /** The user prompt the snapshot belongs to. */
  messageId: string;
  /** Path (relative to the cwd, or absolute) → backup file name, or null when the file did not exist yet. */
  backups: Map<string, string | null>;
}

export interface Conversation {
  sessionId: string | null;
  cwd: string | null;
  version: string | null;
  title: string | null;
  leafUuid: string | null;
  messages: ConversationMessage[];
  /** Every line with a uuid, of all files read, in reading order. */
  lines: ConvLine[];
  mainChain: ConvLine[];
  subagents: SubagentThread[];
  toolUses: Map<string, ToolUse>;
  /** Tool results of the main chain and of sub-agents (not of hidden branches). */
  toolResults: ToolResult[];
  snapshots: FileHistorySnapshot[];
  warnings: string[];
  stats: {
    lines: number;
    conversationLines: number;
    hiddenLines: number;
    sidechainLines: number;
    skippedByType: Record<string, number>;
    malformed: number;
    truncatedLast: boolean;
  };
}

const CONVERSATION_TYPES = new Set(['user', 'assistant', 'system', 'attachment', 'progress']);
const META_TYPES = new Set(['summary', 'custom-title', 'file-history-snapshot']);
const RESULT_EXCERPT = 1000;

export function parseConversation(input: TranscriptInput): Conversation {
  const warnings: string[] = [];
  const skippedByType: Record<string, number> = {};
  const lines: ConvLine[] = [];
  const snapshotsById = new Map<string, FileHistorySnapshot>();
  const snapshots: FileHistorySnapshot[] = [];
  const summaries: { leafUuid: string; summary: string }[] = [];
  let customTitle: string | null = null;
  let malformed = 0;
  let truncatedLast = false;
  let total = 0;
  let order = 0;

  const files = [{ name: 'main', text: input.text }, ...(input.agents ?? [])];
  for (const file of files) {
    const parsed = parseJsonlText(file.text);
    total += parsed.entries.length + parsed.malformed.length + (parsed.truncatedLast ? 1 : 0);
    malformed += parsed.malformed.length;
    if (parsed.malformed.length > 0) {
      const where = file.name === 'main' ? '' : ` of ${file.name}`;
      warnings.push(
        `skipped ${parsed.malformed.length} line(s)${where} that are not JSON objects (line ${parsed.malformed.map((n) => n + 1).join(', ')})`,
      );
    }
    if (parsed.truncatedLast) {
      truncatedLast = true;
      warnings.push(
        `the last line${file.name === 'main' ? '' : ` of ${file.name}`} is incomplete (still being written?) and was skipped`,
      );
    }
    for (const entry of parsed.entries) {
      const d = entry.data;
      const type = str(d.type) ?? '';
      if (CONVERSATION_TYPES.has(type)) {
        const uuid = str(d.uuid);
        if (!uuid) {
          skippedByType[`${type} without uuid`] = (skippedByType[`${type} without uuid`] ?? 0) + 1;
          continue;
        }
        const parent = str(d.parentUuid) ?? (d.parentUuid == null ? (str(d.logicalParentUuid) ?? null) : null);
        lines.push({
          uuid,
          parentUuid: parent,
          type,
          isSidechain: d.isSidechain === true || file.name !== 'main',
          ts: str(d.timestamp) ?? '',
          order: order++,
          file: file.name,
          agentId: str(d.agentId),
          entry,
        });
      } else if (type === 'file-history-snapshot' && file.name === 'main') {
        const snap = obj(d.snapshot);
        const messageId = str(snap?.messageId) ?? str(d.messageId);
        const tracked = obj(snap?.trackedFileBackups);
        if (!messageId || !tracked) continue;
        let s = snapshotsById.get(messageId);
        if (!s) {
          s = { messageId, backups: new Map() };
          snapshotsById.set(messageId, s);
          snapshots.push(s);
        }
        for (const [path, b] of Object.entries(tracked)) {
          const backup = obj(b);
          if (!backup) continue;
          const name = backup.backupFileName;
          s.backups.set(path, typeof name === 'string' ? name : null);
        }
      } else if (type === 'summary') {
        const leafUuid = str(d.leafUuid);
        const summary = str(d.summary);
        if (leafUuid && summary) summaries.push({ leafUuid, summary });
      } else if (type === 'custom-title') {
        customTitle = str(d.customTitle) ?? str(d.title) ?? customTitle;
      } else if (!META_TYPES.has(type)) {
        const key = type || '(no type)';
        skippedByType[key] = (skippedByType[key] ?? 0) + 1;
      }
    }
  }
  for (const [type, n] of Object.entries(skippedByType))
    warnings.push(`skipped ${n} line(s) of unknown type '${type}'`);

  const byUuid = new Map<string, ConvLine>();
  for (const l of lines) if (!byUuid.has(l.uuid)) byUuid.set(l.uuid, l);

  const main = lines.filter((l) => !l.isSidechain && l.file === 'main');
  const leaf = pickResumeLeaf(main);
  const mainChain = leaf ? chainTo(leaf, byUuid, warnings) : [];
  const onChain = new Set(mainChain.map((l) => l.uuid));
  const hiddenLines = main.filter((l) => !onChain.has(l.uuid)).sort(byTime);
  const first = mainChain[0] ?? main[0];
  const cwd = str(first?.entry.data.cwd) ?? null;

  const toolUses = collectToolUses(lines, cwd);
  const chainIndex = new Map(mainChain.map((l, i) => [l.uuid, i]));
  const visible = toMessages(mainChain, toolUses, (u) => chainIndex.get(u) ?? -1, false);
  const hidden = toMessages(hiddenLines, toolUses, () => -1, true);
  const messages = mergeByTime(visible, hidden);

  const subagents = groupSubagents(
    lines.filter((l) => l.isSidechain),
    byUuid,
  );
  const toolResults = collectToolResults([...mainChain, ...subagents.flatMap((s) => s.lines)]);
  linkSubagents(subagents, toolUses, toolResults, onChain);

  const summary = summaries.filter((s) => byUuid.has(s.leafUuid)).at(-1)?.summary ?? null;
  // Else the first prompt the user typed (not a slash command's markup), first line, as Retrace titles go.
  const typed = messages.find((m) => !m.hidden && m.kind === 'prompt' && !m.text.trimStart().startsWith('<'));
  const firstLine = typed?.text.trim().split('\n')[0]!.trim();
  const promptTitle = firstLine ? (firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine) : null;
  return {
    sessionId: str(first?.entry.data.sessionId) ?? null,
    cwd,
    version: str(mainChain.at(-1)?.entry.data.version) ?? str(first?.entry.data.version) ?? null,
    title: customTitle ?? summary ?? promptTitle,
    leafUuid: leaf?.uuid ?? null,
    messages,
    lines,
    mainChain,
    subagents,
    toolUses,
    toolResults,
    snapshots,
    warnings,
    stats: {
      lines: total,
      conversationLines: lines.length,
      hiddenLines: hiddenLines.length,
      sidechainLines: lines.filter((l) => l.isSidechain).length,
      skippedByType,
      malformed,
      truncatedLast,
    },
  };
}

/** The newest leaf of the main thread (what resume continues), preferring user/assistant lines. */
export function pickResumeLeaf(main: ConvLine[]): ConvLine | null {
  const hasChild = new Set<string>();
  for (const l of main) if (l.parentUuid) hasChild.add(l.parentUuid);
  const leaves = main.filter((l) => !hasChild.has(l.uuid));
  const talk = leaves.filter((l) => l.type === 'user' || l.type === 'assistant');
  const pool = talk.length > 0 ? talk : leaves;
  let best: ConvLine | null = null;
  for (const l of pool) if (!best || byTime(l, best) > 0) best = l;
  return best;
}

/** Root → `leaf` along parentUuid. Stops (with a warning) at a missing parent or a cycle. */
export function chainTo(leaf: ConvLine, byUuid: Map<string, ConvLine>, warnings?: string[]): ConvLine[] {
  const chain: ConvLine[] = [];
  const seen = new Set<string>();
  let cur: ConvLine | undefined = leaf;
  while (cur && !seen.has(cur.uuid)) {
    seen.add(cur.uuid);
    chain.push(cur);
    if (!cur.parentUuid) break;
    const next = byUuid.get(cur.parentUuid);
    if (!next)
      warnings?.push(
        `the conversation refers to a line that is not in the file (${cur.parentUuid}); it starts after it`,
      );
    cur = next;
  }
  return chain.reverse();
}

function byTime(a: ConvLine, b: ConvLine): number {
  if (a.ts !== b.ts) return a.ts < b.ts ? -1 : 1;
  return a.order - b.order;
}

function contentOf(line: ConvLine): unknown {
  return obj(line.entry.data.message)?.content;
}

function collectToolUses(lines: ConvLine[], cwd: string | null): Map<string, ToolUse> {
  const uses = new Map<string, ToolUse>();
  for (const line of lines) {
    if (line.type !== 'assistant') continue;
    for (const b of arr(contentOf(line)) ?? []) {
      const block = obj(b);
      if (block?.type !== 'tool_use') continue;
      const id = str(block.id);
      const name = str(block.name) ?? 'tool';
      if (!id || uses.has(id)) continue;
      uses.set(id, { id, name, input: block.input, summary: summarizeToolUse(name, block.input, cwd), line });
    }
  }
  return uses;
}

function collectToolResults(lines: ConvLine[]): ToolResult[] {
  const results: ToolResult[] = [];
  for (const line of lines) {
    if (line.type !== 'user') continue;
    for (const b of arr(contentOf(line)) ?? []) {
      const block = obj(b);
      if (block?.type !== 'tool_result') continue;
      const toolUseId = str(block.tool_use_id);
      if (!toolUseId) continue;
      results.push({ toolUseId, line, isError: block.is_error === true, result: line.entry.data.toolUseResult });
    }
  }
  return results;
}

/** Turn lines (in display order) into messages; lines of one API response (same message.id) become one. */
function toMessages(
  lines: ConvLine[],
  toolUses: Map<string, ToolUse>,
  indexOf: (uuid: string) => number,
  hidden: boolean,
): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  const assistantById = new Map<string, { msg: ConversationMessage; parts: string[] }>();
  for (const line of lines) {
    const d = line.entry.data;
    const base = { ts: line.ts, hidden, uuids: [line.uuid], chainIndex: indexOf(line.uuid) };
    if (line.type === 'assistant') {
      const apiId = str(obj(d.message)?.id);
      const parts = assistantParts(line, toolUses);
      const open = apiId ? assistantById.get(apiId) : undefined;
      if (open) {
        open.parts.push(...parts);
        open.msg.uuids.push(line.uuid);
        open.msg.chainIndex = indexOf(line.uuid);
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
      if (apiId) assistantById.set(apiId, { msg, parts });
    } else if (line.type === 'user') {
      const content = contentOf(line);
      const isMeta = d.isMeta === true;
      if (typeof content === 'string') {
        const system = isMeta || isCommandOutput(content);
        out.push({
          ...base,
          role: system ? 'system' : 'user',
          kind: system ? 'system' : 'prompt',
          text: content,
          meta: { sourceId: line.uuid },
        });
        continue;
      }
      const texts: string[] = [];
      for (const b of arr(content) ?? []) {
        const block = obj(b);
        if (!block) continue;
        if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
        else if (block.type === 'image') texts.push('[image]');
        else if (block.type === 'tool_result') {
          const toolUseId = str(block.tool_use_id) ?? '';
          const use = toolUses.get(toolUseId);
          const summary = use?.summary ?? { tool: 'tool', text: 'tool result' };
          const excerpt = cut(resultText(block.content), RESULT_EXCERPT);
          const head = block.is_error === true ? `${summary.text} (error)` : summary.text;
          const meta: MessageMeta = { tool: summary.tool, sourceId: line.uuid };
          if (summary.file) meta.file = summary.file;
          if (summary.command) meta.command = summary.command;
          out.push({
            ...base,
            role: 'tool',
            kind: 'tool',
            text: excerpt ? `${head}\n${excerpt}` : head,
            toolUseId,
            meta,
          });
        }
      }
      if (texts.length > 0) {
        const text = texts.join('\n');
        const system = isMeta || isCommandOutput(text);
        out.push({
          ...base,
          role: system ? 'system' : 'user',
          kind: system ? 'system' : 'prompt',
          text,
          meta: { sourceId: line.uuid },
        });
      }
    } else if (line.type === 'system') {
      const text = str(d.content);
      if (text && text.trim())
        out.push({ ...base, role: 'system', kind: 'system', text, meta: { sourceId: line.uuid } });
    }
    // attachment / progress lines are part of the chain but carry nothing to show.
  }
  return out.filter((m) => m.text.trim() !== '');
}

/** Lines Claude Code writes as "user" that the user did not type: slash-command output, interruption notes. */
function isCommandOutput(text: string): boolean {
  const t = text.trimStart();
  return (
    t.startsWith('<local-command-stdout>') ||
    t.startsWith('<local-command-stderr>') ||
    t.startsWith('[Request interrupted by user')
  );
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

function resultText(content: unknown): string {
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

/** Visible messages keep their chain order; each hidden message goes before the first visible one that is newer. */
function mergeByTime(visible: ConversationMessage[], hidden: ConversationMessage[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  let h = 0;
  for (const m of visible) {
    while (h < hidden.length && hidden[h]!.ts < m.ts) out.push(hidden[h++]!);
    out.push(m);
  }
  while (h < hidden.length) out.push(hidden[h++]!);
  return out;
}

function groupSubagents(side: ConvLine[], byUuid: Map<string, ConvLine>): SubagentThread[] {
  const threads = new Map<string, SubagentThread>();
  const rootOf = (l: ConvLine): ConvLine => {
    const seen = new Set<string>();
    let cur = l;
    while (cur.parentUuid && !seen.has(cur.uuid)) {
      seen.add(cur.uuid);
      const p = byUuid.get(cur.parentUuid);
      if (!p || !p.isSidechain) break;
      cur = p;
    }
    return cur;
  };
  for (const l of [...side].sort(byTime)) {
    const key = l.agentId ?? (l.file !== 'main' ? l.file : rootOf(l).uuid);
    let t = threads.get(key);
    if (!t) {
      t = { key, lines: [] };
      if (l.agentId) t.agentId = l.agentId;
      threads.set(key, t);
    }
    t.lines.push(l);
  }
  return [...threads.values()];
}

/**
 * Which Task call ran each sub-agent: by agentId (2.x: the Task result names it), else by the prompt (1.0.x:
 * the sidechain starts with the Task's prompt as a user message).
 */
function linkSubagents(
  threads: SubagentThread[],
  toolUses: Map<string, ToolUse>,
  results: ToolResult[],
  onChain: Set<string>,
): void {
  const taskUses = [...toolUses.values()].filter(
    (u) => (u.name === 'Task' || u.name === 'Agent') && onChain.has(u.line.uuid),
  );
  const claimed = new Set<string>();
  for (const t of threads) {
    if (t.agentId) {
      const r = results.find((r) => str(obj(r.result)?.agentId) === t.agentId && onChain.has(r.line.uuid));
      if (r && !claimed.has(r.toolUseId)) {
        t.taskToolUseId = r.toolUseId;
        claimed.add(r.toolUseId);
        continue;
      }
    }
    const root = t.lines[0];
    const prompt = root && root.type === 'user' ? contentOf(root) : undefined;
    const promptText = typeof prompt === 'string' ? prompt : resultText(prompt);
    if (!promptText) continue;
    const use = taskUses.find((u) => !claimed.has(u.id) && str(obj(u.input)?.prompt) === promptText);
    if (use) {
      t.taskToolUseId = use.id;
      claimed.add(use.id);
    }
  }
}

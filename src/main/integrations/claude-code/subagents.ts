/**
 * Tool calls and results of a transcript, and its sub-agent threads (sidechains) tied to the Task/Agent call
 * of the main thread that ran each. Pure.
 */
import { arr, obj, str } from './jsonl';
import { resultText } from './messages';
import { summarizeToolUse } from './toolSummary';
import type { ConvLine, SubagentThread, ToolResult, ToolUse } from './types';

function contentOf(line: ConvLine): unknown {
  return obj(line.entry.data.message)?.content;
}

export function collectToolUses(lines: ConvLine[], cwd: string | null): Map<string, ToolUse> {
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

export function collectToolResults(lines: ConvLine[]): ToolResult[] {
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

const byTime = (a: ConvLine, b: ConvLine): number => (a.ts !== b.ts ? (a.ts < b.ts ? -1 : 1) : a.order - b.order);

export function groupSubagents(side: ConvLine[], byUuid: Map<string, ConvLine>): SubagentThread[] {
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
export function linkSubagents(
  threads: SubagentThread[],
  toolUses: Map<string, ToolUse>,
  results: ToolResult[],
  onTimeline: Set<string>,
): void {
  const taskUses = [...toolUses.values()].filter(
    (u) => (u.name === 'Task' || u.name === 'Agent') && onTimeline.has(u.line.uuid),
  );
  const claimed = new Set<string>();
  for (const t of threads) {
    if (t.agentId) {
      const r = results.find((r) => str(obj(r.result)?.agentId) === t.agentId && onTimeline.has(r.line.uuid));
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

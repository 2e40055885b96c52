/**
 * What a Claude Code transcript holds, counted from its raw lines alone — on purpose without the importer's
 * graph, leaf or branch logic, so the conformance check compares the importer with something independent.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface RawClaudeCounts {
  /** Prompts the person typed (slash commands included) in the main thread. */
  typedPrompts: number;
  /** user/assistant lines of the main thread. */
  talkLines: number;
  /** The newest main-thread user/assistant line with something to show: its uuid and its response's lines. */
  newest: { uuid: string; unit: string[] } | null;
  /** Points where a typed prompt was sent again: a parent with a typed-prompt child and another talk child. */
  resentPoints: number;
  /** tool_use ids of Edit/Write/MultiEdit/NotebookEdit calls whose result says they ran. */
  successfulEdits: Set<string>;
}

const EDIT_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
const blocksOf = (d: Obj): Obj[] => {
  const c = asObj(d.message)?.content;
  return Array.isArray(c) ? c.map(asObj).filter((b): b is Obj => !!b) : [];
};
const textOf = (d: Obj): string => {
  const c = asObj(d.message)?.content;
  if (typeof c === 'string') return c;
  return blocksOf(d)
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
};

function isTyped(d: Obj): boolean {
  if (d.type !== 'user' || d.isSidechain === true || d.isMeta === true || d.isCompactSummary === true) return false;
  if (blocksOf(d).some((b) => b.type === 'tool_result')) return false;
  const t = textOf(d).trimStart();
  return t !== '' && !t.startsWith('<local-command-') && !t.startsWith('[Request interrupted');
}

function showsSomething(d: Obj): boolean {
  if (textOf(d).trim() !== '') return true;
  return blocksOf(d).some((b) => b.type === 'tool_use' || b.type === 'tool_result' || b.type === 'image');
}

async function eachLine(path: string, fn: (d: Obj) => void): Promise<void> {
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    try {
      const d = asObj(JSON.parse(line));
      if (d) fn(d);
    } catch {
      // a torn or broken line holds nothing to count
    }
  }
}

export async function countClaudeTranscript(main: string, agentFiles: string[] = []): Promise<RawClaudeCounts> {
  const counts: RawClaudeCounts = {
    typedPrompts: 0,
    talkLines: 0,
    newest: null,
    resentPoints: 0,
    successfulEdits: new Set(),
  };
  const editCalls = new Set<string>();
  const results = new Map<string, boolean>();
  const byApiId = new Map<string, string[]>();
  const children = new Map<string, { typed: number; talk: number }>();
  let newest: { d: Obj; ts: string; order: number } | null = null;
  let order = 0;
  const seen = new Set<string>();

  const edits = (d: Obj) => {
    for (const b of blocksOf(d)) {
      if (d.type === 'assistant' && b.type === 'tool_use' && EDIT_TOOLS.has(String(b.name)))
        editCalls.add(String(b.id));
      if (d.type === 'user' && b.type === 'tool_result') {
        const ok = b.is_error !== true && typeof d.toolUseResult !== 'string';
        results.set(String(b.tool_use_id), (results.get(String(b.tool_use_id)) ?? false) || ok);
      }
    }
  };
  await eachLine(main, (d) => {
    order++;
    edits(d);
    const uuid = typeof d.uuid === 'string' ? d.uuid : undefined;
    if (!uuid || d.isSidechain === true || (d.type !== 'user' && d.type !== 'assistant')) return;
    if (seen.has(uuid)) return; // a line copied again (older resumes) is one line
    seen.add(uuid);
    counts.talkLines++;
    if (isTyped(d)) counts.typedPrompts++;
    const apiId = asObj(d.message)?.id;
    if (d.type === 'assistant' && typeof apiId === 'string') byApiId.set(apiId, [...(byApiId.get(apiId) ?? []), uuid]);
    const parent = typeof d.parentUuid === 'string' ? d.parentUuid : '(root)';
    const c = children.get(parent) ?? { typed: 0, talk: 0 };
    c.talk++;
    if (isTyped(d)) c.typed++;
    children.set(parent, c);
    const ts = typeof d.timestamp === 'string' ? d.timestamp : '';
    if (showsSomething(d) && (!newest || ts > newest.ts || (ts === newest.ts && order > newest.order)))
      newest = { d, ts, order };
  });
  for (const f of agentFiles) await eachLine(f, edits);

  for (const [parent, c] of children)
    if (c.typed > 0 && (parent !== '(root)' ? c.talk > 1 : c.typed > 1)) counts.resentPoints++;
  for (const id of editCalls) if (results.get(id) === true) counts.successfulEdits.add(id);
  const n = newest as { d: Obj } | null;
  if (n) {
    const uuid = n.d.uuid as string;
    const apiId = asObj(n.d.message)?.id;
    counts.newest = { uuid, unit: typeof apiId === 'string' ? (byApiId.get(apiId) ?? [uuid]) : [uuid] };
  }
  return counts;
}

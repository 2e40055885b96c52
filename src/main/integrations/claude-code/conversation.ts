/**
 * A Claude Code transcript as a conversation: the lines are read into a graph (graph.ts), the timeline is
 * the conversation `claude --resume` continues with every parallel branch of a response folded in and only
 * abandoned branches hidden (timeline.ts), sub-agent threads are kept apart and tied to the Task call that
 * ran them (subagents.ts), and lines become messages (messages.ts). The rule is written in docs/formats.md.
 *
 * `parseConversation` reads strings (tests, forks); `readConversation` streams files (imports).
 */
import { obj, parseJsonlText, str, streamJsonl, type JsonlEntry, type JsonlProblems } from './jsonl';
import { buildGraph } from './graph';
import { customTitleOf, isTypedPrompt, titleFrom, userText } from './labels';
import { toMessages } from './messages';
import { collectEvery, collectNow } from './memory';
import { isPacked, packMessage } from './packedMessage';
import { lineSlimmer } from './slim';
import { collectToolResults, collectToolUses, groupSubagents, linkSubagents } from './subagents';
import { layTimeline } from './timeline';
import type { Conversation, ConvLine, FileHistorySnapshot } from './types';
import { compareVersions, NEWEST_KNOWN_VERSION } from './versions';

export type * from './types';

export interface TranscriptInput {
  /** The session file (`<sessionId>.jsonl`). */
  text: string;
  /** Sub-agent files (`agent-<id>.jsonl` beside it, or `<sessionId>/subagents/agent-<id>.jsonl`). */
  agents?: { name: string; text: string }[];
}

const CONVERSATION_TYPES = new Set(['user', 'assistant', 'system', 'attachment', 'progress']);
/** Record types Claude Code writes that are not conversation and that the importer needs nothing from. */
const NOT_CONVERSATION = new Set(['queue-operation', 'permission-mode', 'last-prompt', 'pr-link']);

export function parseConversation(input: TranscriptInput): Conversation {
  const reader = new TranscriptReader();
  for (const file of [{ name: 'main', text: input.text }, ...(input.agents ?? [])]) {
    const parsed = parseJsonlText(file.text);
    for (const e of parsed.entries) reader.add(file.name, e);
    reader.endFile(file.name, parsed);
  }
  return reader.finish();
}

/**
 * Stream the session file and its sub-agent files; only what the importer uses is kept of each line.
 * `pack`: the messages come compressed (packedMessage.ts), for an import that holds them until it writes.
 */
export async function readConversation(
  file: string,
  agents: { name: string; path: string }[],
  opts: { pack?: boolean } = {},
): Promise<Conversation> {
  const reader = new TranscriptReader({ releaseShown: true, pack: opts.pack === true });
  const slim = lineSlimmer();
  for (const f of [{ name: 'main', path: file }, ...agents]) {
    const problems = await streamJsonl(
      f.path,
      (e) => reader.add(f.name, { line: e.line, data: slim(e.data) }),
      collectEvery(16 * 2 ** 20),
    );
    reader.endFile(f.name, problems);
  }
  collectNow();
  return reader.finish();
}

/** Collects lines as they are read, then builds the conversation. */
class TranscriptReader {
  private readonly warnings: string[] = [];
  private readonly skippedByType: Record<string, number> = {};
  private readonly lines: ConvLine[] = [];
  private readonly snapshotsById = new Map<string, FileHistorySnapshot>();
  private readonly snapshots: FileHistorySnapshot[] = [];
  private readonly summaries: { leafUuid: string; summary: string }[] = [];
  private customTitle: string | null = null;
  private malformed = 0;
  private truncatedLast = false;
  private total = 0;
  private newestVersion: string | null = null;

  /**
   * releaseShown: drop the main thread's texts once they are messages (the lines are slimmed copies).
   * pack: compress each message once made (packedMessage.ts).
   */
  constructor(private readonly opts: { releaseShown?: boolean; pack?: boolean } = {}) {}

  add(file: string, entry: JsonlEntry): void {
    this.total++;
    const d = entry.data;
    const type = str(d.type) ?? '';
    const version = str(d.version);
    if (version && (!this.newestVersion || compareVersions(version, this.newestVersion) > 0))
      this.newestVersion = version;
    if (CONVERSATION_TYPES.has(type)) {
      const uuid = str(d.uuid);
      if (!uuid) {
        this.skip(`${type} without uuid`);
        return;
      }
      const line: ConvLine = {
        uuid,
        parentUuid: str(d.parentUuid) ?? null,
        type,
        isSidechain: d.isSidechain === true || file !== 'main',
        ts: str(d.timestamp) ?? '',
        order: this.lines.length,
        file,
        entry,
      };
      const logical = str(d.logicalParentUuid);
      if (logical) line.logicalParentUuid = logical;
      const subtype = str(d.subtype);
      if (subtype) line.subtype = subtype;
      const agentId = str(d.agentId);
      if (agentId) line.agentId = agentId;
      this.lines.push(line);
    } else if (type === 'file-history-snapshot') {
      if (file !== 'main') return;
      const snap = obj(d.snapshot);
      const messageId = str(snap?.messageId) ?? str(d.messageId);
      const tracked = obj(snap?.trackedFileBackups);
      if (!messageId || !tracked) return;
      for (const [path, b] of Object.entries(tracked)) {
        const backup = obj(b);
        if (backup) this.backup(messageId, path, backup.backupFileName);
      }
    } else if (type === 'file-history-delta') {
      // ≥ 2.1.220: one backup per line, for the prompt `snapshotMessageId`.
      if (file !== 'main') return;
      const messageId = str(d.snapshotMessageId) ?? str(d.messageId);
      const path = str(d.trackingPath);
      const backup = obj(d.backup);
      if (messageId && path && backup) this.backup(messageId, path, backup.backupFileName);
    } else if (type === 'summary') {
      const leafUuid = str(d.leafUuid);
      const summary = str(d.summary);
      if (leafUuid && summary) this.summaries.push({ leafUuid, summary });
    } else if (type === 'custom-title') {
      this.customTitle = customTitleOf(d) ?? this.customTitle;
    } else if (!NOT_CONVERSATION.has(type)) {
      this.skip(type || '(no type)');
    }
  }

  endFile(name: string, problems: JsonlProblems): void {
    const where = name === 'main' ? '' : ` of ${name}`;
    this.total += problems.malformed.length + (problems.truncatedLast ? 1 : 0);
    this.malformed += problems.malformed.length;
    if (problems.malformed.length > 0)
      this.warnings.push(
        `skipped ${problems.malformed.length} line(s)${where} that are not JSON objects (line ${problems.malformed.map((n) => n + 1).join(', ')})`,
      );
    if (problems.truncatedLast) {
      this.truncatedLast = true;
      this.warnings.push(`the last line${where} is incomplete (still being written?) and was skipped`);
    }
  }

  private skip(key: string): void {
    this.skippedByType[key] = (this.skippedByType[key] ?? 0) + 1;
  }

  private backup(messageId: string, path: string, name: unknown): void {
    let s = this.snapshotsById.get(messageId);
    if (!s) {
      s = { messageId, backups: new Map() };
      this.snapshotsById.set(messageId, s);
      this.snapshots.push(s);
    }
    s.backups.set(path, typeof name === 'string' ? name : null);
  }

  finish(): Conversation {
    const { warnings, lines } = this;
    for (const [type, n] of Object.entries(this.skippedByType))
      warnings.push(`skipped ${n} line(s) of unknown type '${type}'`);
    if (this.newestVersion && compareVersions(this.newestVersion, NEWEST_KNOWN_VERSION) > 0)
      warnings.push(
        `written by Claude Code ${this.newestVersion}, newer than any version this importer knows (${NEWEST_KNOWN_VERSION}): what it does not understand is skipped`,
      );

    const graph = buildGraph(
      lines.filter((l) => !l.isSidechain && l.file === 'main'),
      warnings,
    );
    const timeline = layTimeline(graph);
    const onTimeline = new Set(timeline.lines.map((l) => l.uuid));
    const first = timeline.lines[0] ?? graph.nodes[0];
    const cwd = str(first?.entry.data.cwd) ?? null;

    const toolUses = collectToolUses(lines, cwd);
    const shown = graph.nodes.filter((l) => onTimeline.has(l.uuid) || timeline.hidden.has(l.uuid));
    // Building the messages is the reading's peak: an import starts it with no garbage, collects as it goes,
    // and packs each tool message (output, patch: most of a message's bytes) as soon as it is made, letting
    // the line's copy of the output go; the other messages are packed once all are made.
    if (this.opts.pack) collectNow();
    const messages = toMessages(
      shown,
      toolUses,
      (u) => !onTimeline.has(u),
      this.opts.pack
        ? {
            settleTool: (m, block) => {
              block.content = '';
              return packMessage(m);
            },
            tick: collectNow,
          }
        : {},
    );
    if (this.opts.pack)
      for (let i = 0; i < messages.length; i++) if (!isPacked(messages[i]!)) messages[i] = packMessage(messages[i]!);
    const byUuid = new Map<string, ConvLine>();
    for (const l of lines) if (!byUuid.has(l.uuid)) byUuid.set(l.uuid, l);
    const subagents = groupSubagents(
      lines.filter((l) => l.isSidechain),
      byUuid,
    );
    const toolResults = collectToolResults([...timeline.lines, ...subagents.flatMap((s) => s.lines)]);
    linkSubagents(subagents, toolUses, toolResults, onTimeline);
    const hiddenToolResults = collectToolResults(graph.nodes.filter((l) => timeline.hidden.has(l.uuid)));

    const summary = this.summaries.filter((s) => byUuid.has(s.leafUuid)).at(-1)?.summary ?? null;
    const typed = timeline.lines.filter(isTypedPrompt).map((l) => userText(l) ?? '');
    if (this.opts.releaseShown) for (const l of graph.nodes) releaseTexts(l);
    return {
      sessionId: str(first?.entry.data.sessionId) ?? null,
      cwd,
      version: str(timeline.leaf?.entry.data.version) ?? str(first?.entry.data.version) ?? null,
      title: this.customTitle ?? summary ?? titleFrom(typed),
      leafUuid: timeline.leaf?.uuid ?? null,
      messages,
      lines,
      mainChain: timeline.lines,
      hiddenLines: timeline.hidden,
      subagents,
      toolUses,
      toolResults,
      hiddenToolResults,
      snapshots: this.snapshots,
      warnings,
      stats: {
        lines: this.total,
        conversationLines: lines.length,
        hiddenLines: timeline.hidden.size,
        sidechainLines: lines.filter((l) => l.isSidechain).length,
        skippedByType: this.skippedByType,
        malformed: this.malformed,
        truncatedLast: this.truncatedLast,
      },
    };
  }
}

/**
 * A main-thread line without the texts its messages now hold: what stays is what reconstruction and tool
 * summaries read (tool calls, the tool's report), so a long transcript's texts are not held twice.
 */
function releaseTexts(line: ConvLine): void {
  const message = obj(line.entry.data.message);
  if (!message) return;
  const content = message.content;
  if (!Array.isArray(content)) {
    message.content = '';
    return;
  }
  message.content = content
    .map((b) => obj(b))
    .filter((b) => b?.type === 'tool_use' || b?.type === 'tool_result')
    .map((b) => (b!.type === 'tool_result' ? { ...b, content: '' } : b));
}

/** Root → `line` along parentUuid as written (what a fork copies). Stops at a missing parent or a cycle. */
export function chainTo(line: ConvLine, byUuid: Map<string, ConvLine>): ConvLine[] {
  const chain: ConvLine[] = [];
  const seen = new Set<string>();
  let cur: ConvLine | undefined = line;
  while (cur && !seen.has(cur.uuid)) {
    seen.add(cur.uuid);
    chain.push(cur);
    const parent: string | null = cur.parentUuid ?? cur.logicalParentUuid ?? null;
    cur = parent ? byUuid.get(parent) : undefined;
  }
  return chain.reverse();
}

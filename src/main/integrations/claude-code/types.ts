/** The shapes a Claude Code transcript is read into (see conversation.ts for how, docs/formats.md for why). */
import type { MessageMeta, Role } from '../../../shared/model';
import type { JsonlEntry } from './jsonl';
import type { ToolSummary } from './toolSummary';

/** A line of the conversation graph (it has a uuid). */
export interface ConvLine {
  uuid: string;
  /** As written; null at a root (and on a compact_boundary, whose link is `logicalParentUuid`). */
  parentUuid: string | null;
  logicalParentUuid?: string;
  type: string;
  /** `system` lines: `compact_boundary`, `turn_duration`, …; `progress` lines: `hook_progress`, … */
  subtype?: string;
  isSidechain: boolean;
  ts: string;
  /** Position across all files read (main file first): the order the lines were written in. */
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

/** Why a line of the main thread is not on the timeline. */
export type HiddenReason = 'rewind' | 'other';

export interface ConversationMessage {
  role: Role;
  kind: 'prompt' | 'assistant' | 'tool' | 'system';
  text: string;
  ts: string;
  hidden: boolean;
  /** The transcript lines it came from, in order. */
  uuids: string[];
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
  /** The timeline: the resumed chain with every folded parallel branch, in the order written. */
  mainChain: ConvLine[];
  /** Main-thread lines not on the timeline, and why. */
  hiddenLines: Map<string, HiddenReason>;
  subagents: SubagentThread[];
  toolUses: Map<string, ToolUse>;
  /** Tool results of the timeline and of sub-agents. */
  toolResults: ToolResult[];
  /** Tool results of hidden (rewound) lines: their edits are accounted as not on the conversation. */
  hiddenToolResults: ToolResult[];
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

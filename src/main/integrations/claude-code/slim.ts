/**
 * The parts of a transcript line the importer reads, and nothing else: a long session's lines carry token
 * usage, thinking, whole file reads and command outputs that are never shown in full. Keeping only these
 * parts is what lets a large transcript import in memory close to its size on disk. Pure.
 */
import { arr, obj } from './jsonl';
import { RESULT_EXCERPT } from './messages';

const TOP = [
  'type',
  'subtype',
  'uuid',
  'parentUuid',
  'logicalParentUuid',
  'isSidechain',
  'timestamp',
  'sessionId',
  'cwd',
  'version',
  'agentId',
  'isMeta',
  'isCompactSummary',
  'isVisibleInTranscriptOnly',
  'content',
  // file history
  'messageId',
  'snapshot',
  'snapshotMessageId',
  'trackingPath',
  'backup',
  // titles
  'summary',
  'leafUuid',
  'customTitle',
  'title',
] as const;

/** What reconstruction and sub-agent linking read from a tool's report. */
const RESULT_KEYS = [
  'type',
  'filePath',
  'content',
  'originalFile',
  'originalFileContents',
  'structuredPatch',
  'edits',
  'oldString',
  'newString',
  'replaceAll',
  'agentId',
] as const;

export function slimLine(data: Record<string, unknown>): Record<string, unknown> {
  if (data.type === 'progress') return pick(data, ['type', 'uuid', 'parentUuid', 'isSidechain', 'timestamp']);
  const out = pick(data, TOP);
  const message = obj(data.message);
  if (message) {
    const m: Record<string, unknown> = { id: message.id, role: message.role };
    const blocks = arr(message.content);
    m.content = blocks ? blocks.map(slimBlock).filter((b) => b !== null) : message.content;
    out.message = m;
  }
  const result = data.toolUseResult;
  if (result !== undefined) out.toolUseResult = obj(result) ? pick(obj(result)!, RESULT_KEYS) : result;
  return out;
}

function slimBlock(b: unknown): unknown {
  const block = obj(b);
  if (!block) return null;
  switch (block.type) {
    case 'thinking':
    case 'redacted_thinking':
      return null;
    case 'image':
      return { type: 'image' };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.tool_use_id,
        is_error: block.is_error,
        content: excerpt(block.content),
      };
    default:
      return block;
  }
}

/** A tool result's text, cut a little beyond what a message shows. */
function excerpt(content: unknown): unknown {
  const limit = RESULT_EXCERPT * 2;
  if (typeof content === 'string') return content.length > limit ? content.slice(0, limit) : content;
  const blocks = arr(content);
  if (!blocks) return content;
  return blocks.map((b) => {
    const block = obj(b);
    if (block?.type === 'image') return { type: 'image' };
    if (block?.type === 'text' && typeof block.text === 'string' && block.text.length > limit)
      return { type: 'text', text: block.text.slice(0, limit) };
    return b;
  });
}

function pick(data: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (data[k] !== undefined) out[k] = data[k];
  return out;
}

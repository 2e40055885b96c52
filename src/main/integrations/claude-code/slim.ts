/**
 * The parts of a transcript line the importer reads, and nothing else: a long session's lines carry whole
 * file reads, command outputs and thinking, of which the Message region shows at most DETAIL_LIMIT characters
 * each (details.ts), and sub-agent lines whose texts are never shown. Keeping only these parts is what lets a
 * large transcript import in memory close to its size on disk. Pure.
 */
import { DETAIL_LIMIT } from '../details';
import { arr, obj } from './jsonl';
import { RESULT_EXCERPT, resultText } from './messages';
import { PackedText } from './packedText';

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
  'costUSD',
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

/**
 * What reconstruction and sub-agent linking read from a tool's report (a Write's `content` is its input's
 * `content` again: the input is kept, so this copy is not).
 */
const RESULT_KEYS = [
  'type',
  'filePath',
  'originalFile',
  'originalFileContents',
  'structuredPatch',
  'edits',
  'oldString',
  'newString',
  'replaceAll',
  'agentId',
] as const;

/** Values every line repeats (the cwd, the session id, the version): one copy each, not one per line. */
const REPEATED = ['cwd', 'sessionId', 'version'] as const;

/** A slimmer for one transcript (it shares the values lines repeat). */
export function lineSlimmer(): (data: Record<string, unknown>) => Record<string, unknown> {
  const shared = new Map<string, string>();
  const once = (v: unknown): unknown => {
    if (typeof v !== 'string') return v;
    const known = shared.get(v);
    if (known !== undefined) return known;
    shared.set(v, v);
    return v;
  };
  return (data) => {
    const out = slimLine(data);
    for (const k of REPEATED) if (out[k] !== undefined) out[k] = once(out[k]);
    return out;
  };
}

export function slimLine(data: Record<string, unknown>): Record<string, unknown> {
  // A progress line only links the graph (graph.ts); nothing of it is shown.
  if (data.type === 'progress') return pick(data, ['type', 'uuid', 'parentUuid', 'isSidechain']);
  const out = pick(data, TOP);
  const message = obj(data.message);
  if (message) {
    const m: Record<string, unknown> = { id: message.id, role: message.role };
    // Sub-agent lines are never messages: their texts only need to be long enough to link the threads.
    const shown = data.isSidechain !== true;
    if (shown && message.model !== undefined) m.model = message.model;
    if (shown && message.usage !== undefined) m.usage = message.usage;
    const blocks = arr(message.content);
    m.content = blocks ? blocks.map((b) => slimBlock(b, shown)).filter((b) => b !== null) : message.content;
    out.message = m;
  }
  const result = data.toolUseResult;
  if (result !== undefined) out.toolUseResult = obj(result) ? slimResult(obj(result)!) : result;
  return out;
}

/**
 * A tool's report; a whole file's text in it (`originalFile`) is kept deflated (packedText.ts): only the step
 * reconstruction reads it, and as a JavaScript string it takes two bytes per character as soon as one is
 * beyond Latin-1.
 */
function slimResult(result: Record<string, unknown>): Record<string, unknown> {
  const out = pick(result, RESULT_KEYS);
  for (const k of ['originalFile', 'originalFileContents'])
    if (typeof out[k] === 'string' && (out[k] as string).length > 1024) out[k] = new PackedText(out[k] as string);
  return out;
}

function slimBlock(b: unknown, shown: boolean): unknown {
  const block = obj(b);
  if (!block) return null;
  switch (block.type) {
    case 'thinking':
      if (!shown || typeof block.thinking !== 'string') return null;
      return { type: 'thinking', ...kept('thinking', block.thinking) };
    case 'redacted_thinking':
      return shown ? { type: 'redacted_thinking' } : null;
    case 'image':
      return { type: 'image' };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.tool_use_id,
        is_error: block.is_error,
        ...(shown ? kept('content', resultText(block.content)) : { content: excerpt(block.content) }),
      };
    case 'tool_use': {
      // A Write's whole file text, kept deflated like a report's originalFile (slimResult).
      const input = obj(block.input);
      const content = input?.content;
      if (block.name !== 'Write' || typeof content !== 'string' || content.length <= 1024) return block;
      return { ...block, input: { ...input, content: new PackedText(content) } };
    }
    default:
      return block;
  }
}

/** A text cut a little beyond what a message's details keep, with its length when cut (details.ts capText). */
function kept(key: string, text: string): Record<string, unknown> {
  if (text.length <= DETAIL_LIMIT) return { [key]: text };
  return { [key]: text.slice(0, DETAIL_LIMIT + 1), full_length: text.length };
}

/** A sub-agent tool result's text, cut a little beyond what a message shows. */
function excerpt(content: unknown): unknown {
  const limit = RESULT_EXCERPT + 100; // the excerpt shown, and enough beyond to know it was cut
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

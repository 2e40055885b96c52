/**
 * A Gemini CLI chat (`~/.gemini/tmp/<sha256 of the project root>/chats/session-*.json[l]`) read into its
 * messages in order, with rewound ones marked. Two shapes (FORMATS.md):
 * - legacy `.json`: one object `{sessionId, projectHash, startTime, lastUpdated, messages[]}`;
 * - `.jsonl`: a metadata line, then records — a message (the last record per `id` wins, in the place of its
 *   first), `{"$set": {…}}` metadata updates, `{"$rewindTo": id}` (that message and all after it were rewound).
 */
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface GeminiToolCall {
  id: string;
  name: string;
  args: unknown;
  status: string;
  result: unknown;
  resultDisplay: unknown;
}

export interface GeminiMessage {
  id: string;
  ts: string;
  type: string;
  content: string;
  thoughts: string[];
  toolCalls: GeminiToolCall[];
  model: string | null;
  /** `{input, output, cached, thoughts, tool, total}` as Gemini CLI records them, when it does. */
  tokens: Record<string, unknown> | null;
  rewound: boolean;
}

export interface GeminiChat {
  sessionId: string | null;
  projectHash: string | null;
  startTime: string | null;
  messages: GeminiMessage[];
  warnings: string[];
}

type Json = Record<string, unknown>;

export async function readGeminiChat(file: string): Promise<GeminiChat> {
  return file.endsWith('.jsonl') ? readJsonl(file) : readLegacy(file);
}

function readLegacy(file: string): GeminiChat {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`not a JSON document: ${(e as Error).message}`);
  }
  if (!isObj(doc) || !Array.isArray(doc.messages)) throw new Error('not a Gemini chat (no messages array)');
  const chat = header(doc);
  for (const m of doc.messages) if (isObj(m)) chat.messages.push(toMessage(m));
  return chat;
}

async function readJsonl(file: string): Promise<GeminiChat> {
  let chat: GeminiChat | null = null;
  const order: string[] = [];
  const byId = new Map<string, GeminiMessage>();
  let bad = 0;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      bad++;
      continue;
    }
    if (!isObj(rec)) continue;
    if (chat === null) {
      chat = header(rec);
      if (typeof rec.id !== 'string' || typeof rec.type !== 'string') continue; // the metadata line
    }
    if (isObj(rec.$set)) {
      Object.assign(chat, pickHeader(rec.$set));
      continue;
    }
    if (typeof rec.$rewindTo === 'string') {
      const at = order.indexOf(rec.$rewindTo);
      if (at < 0) chat.warnings.push(`$rewindTo names an unknown message ${rec.$rewindTo}; ignored`);
      else for (const id of order.slice(at)) byId.get(id)!.rewound = true;
      continue;
    }
    if (typeof rec.id !== 'string') continue;
    if (!byId.has(rec.id)) order.push(rec.id);
    byId.set(rec.id, toMessage(rec)); // the last record per id wins (and a re-recorded message is current again)
  }
  if (!chat) throw new Error('empty file');
  if (bad > 0) chat.warnings.push(`${bad} line(s) are not JSON and were skipped (a truncated last line?)`);
  chat.messages = order.map((id) => byId.get(id)!);
  return chat;
}

function header(doc: Json): GeminiChat {
  return {
    sessionId: null,
    projectHash: null,
    startTime: null,
    messages: [],
    warnings: [],
    ...pickHeader(doc),
  };
}

function pickHeader(doc: Json): Partial<GeminiChat> {
  const out: Partial<GeminiChat> = {};
  if (typeof doc.sessionId === 'string') out.sessionId = doc.sessionId;
  if (typeof doc.projectHash === 'string') out.projectHash = doc.projectHash;
  if (typeof doc.startTime === 'string') out.startTime = doc.startTime;
  return out;
}

function toMessage(m: Json): GeminiMessage {
  return {
    id: String(m.id ?? ''),
    ts: typeof m.timestamp === 'string' ? m.timestamp : '',
    type: typeof m.type === 'string' ? m.type : 'info',
    content: textOf(m.content),
    thoughts: Array.isArray(m.thoughts)
      ? m.thoughts.filter(isObj).map((t) => [t.subject, t.description].filter((x) => typeof x === 'string').join(': '))
      : [],
    toolCalls: Array.isArray(m.toolCalls)
      ? m.toolCalls.filter(isObj).map((t) => ({
          id: String(t.id ?? ''),
          name: String(t.name ?? 'tool'),
          args: t.args,
          status: String(t.status ?? ''),
          result: t.result,
          resultDisplay: t.resultDisplay,
        }))
      : [],
    model: typeof m.model === 'string' ? m.model : null,
    tokens: isObj(m.tokens) ? m.tokens : null,
    rewound: false,
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : ''))
      .filter(Boolean)
      .join('\n');
  return '';
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

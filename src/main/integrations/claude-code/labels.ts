/**
 * What the person typed, and how lines read: Claude Code writes as "user" many lines nobody typed (tool
 * results, slash-command output, interruption notes, the compaction summary, expanded commands marked
 * isMeta); slash commands are stored as markup; tool output carries terminal colour codes. Pure.
 */
import { arr, obj, str } from './jsonl';
import type { ConvLine } from './types';
import { stripAnsi } from '../details';

function contentOf(line: ConvLine): unknown {
  return obj(line.entry.data.message)?.content;
}

/** The text blocks of a user line joined, or undefined when it holds none (tool results, images only). */
export function userText(line: ConvLine): string | undefined {
  const content = contentOf(line);
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const b of arr(content) ?? []) {
    const block = obj(b);
    if (block?.type === 'text' && typeof block.text === 'string') texts.push(block.text);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** Lines Claude Code writes as "user" that the user did not type: slash-command output, interruption notes. */
export function isCommandOutput(text: string): boolean {
  const t = text.trimStart();
  return (
    t.startsWith('<local-command-stdout>') ||
    t.startsWith('<local-command-stderr>') ||
    t.startsWith('<local-command-caveat>') ||
    t.startsWith('[Request interrupted by user')
  );
}

/** A prompt the person typed (a slash command included), as opposed to everything else written as "user". */
export function isTypedPrompt(line: ConvLine): boolean {
  if (line.type !== 'user') return false;
  const d = line.entry.data;
  if (d.isMeta === true || d.isCompactSummary === true || d.isVisibleInTranscriptOnly === true) return false;
  const content = contentOf(line);
  if (arr(content)?.some((b) => obj(b)?.type === 'tool_result')) return false;
  const text = userText(line);
  return text !== undefined && text.trim() !== '' && !isCommandOutput(text);
}

/** A user or assistant line: what a person reads as the conversation. */
export function isTalk(line: ConvLine): boolean {
  return line.type === 'user' || line.type === 'assistant';
}

/**
 * A slash command's markup (`<command-name>/review</command-name><command-args>src</command-args>`, with an
 * optional `<command-message>`) as the person typed it (`/review src`); other text unchanged.
 */
export function readableCommand(text: string): string {
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(text)?.[1]?.trim();
  if (!name) return text;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim();
  const slash = name.startsWith('/') ? name : `/${name}`;
  return args ? `${slash} ${args}` : slash;
}

/**
 * A slash command's output or caveat as it reads (`<local-command-stdout>See ya!</local-command-stdout>` → `See ya!`),
 * colour codes dropped; other text unchanged. Claude Code shows these lines without their markup.
 */
export function readableCommandOutput(text: string): string {
  const m = /^\s*<(local-command-(?:stdout|stderr|caveat))>([\s\S]*)<\/\1>\s*$/.exec(text);
  if (!m) return text;
  const body = stripAnsi(m[2]!).trim();
  return body === '' ? '(no output)' : body;
}

/** Commands that only manage the session: never a title. */
const HOUSEKEEPING = new Set(['/clear', '/compact', '/exit', '/quit', '/resume', '/model', '/login', '/cost']);

const oneLine = (text: string, max = 80): string | null => {
  const first = text
    .split('\n')
    .map((s) => s.trim())
    .find((s) => s !== '');
  if (!first) return null;
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
};

/**
 * The session's title: the first prompt the person typed (a slash command read as `/name args`, never its
 * markup, and never a housekeeping command like /clear), first line; null when nothing typed says anything.
 */
export function titleFrom(prompts: string[]): string | null {
  let command: string | null = null;
  for (const raw of prompts) {
    const text = stripAnsi(raw);
    const readable = readableCommand(text);
    if (readable !== text) {
      const name = readable.split(/\s/)[0]!;
      if (!command && !HOUSEKEEPING.has(name)) command = oneLine(readable);
      continue;
    }
    if (text.trimStart().startsWith('<')) continue; // other markup (hook output, caveats)
    const title = oneLine(text);
    if (title) return title;
  }
  return command;
}

/** Summary/custom-title lines may name a title too. */
export function customTitleOf(data: Record<string, unknown>): string | undefined {
  return str(data.customTitle) ?? str(data.title);
}

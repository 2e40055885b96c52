/**
 * What every importer keeps of a transcript for the Message region (UI.md "Message reading"): tool inputs,
 * outputs and patches as bounded texts. A session log holds every message, so no single text may grow it by
 * more than DETAIL_LIMIT characters; a longer one is cut and ends with a note saying how much was left out.
 * Pure.
 */
import type { TokenUsage, ToolCallDetail } from '../../shared/model';

/** The longest text a message's details keep (tool input, output, patch, thinking). */
export const DETAIL_LIMIT = 64 * 1024;

/**
 * `text` as kept: itself, or its first DETAIL_LIMIT characters and a note of how much was cut. `fullLength` is
 * the length of the text `text` was already cut from (a slimmed transcript line keeps a little more than the
 * limit, and its original length). A text already cut by this function is returned as it is.
 */
export function capText(text: string, fullLength = text.length): string {
  if (text.length <= DETAIL_LIMIT && fullLength <= DETAIL_LIMIT) return text;
  if (CUT_NOTE.test(text.slice(DETAIL_LIMIT))) return text;
  return `${text.slice(0, DETAIL_LIMIT)}\n… (cut: ${Math.max(fullLength, text.length) - DETAIL_LIMIT} more characters not kept)`;
}

const CUT_NOTE = /^\n… \(cut: \d+ more characters not kept\)$/;

/** A tool's arguments as readable text: a string as it is, anything else as indented JSON. */
export function argsText(args: unknown): string | undefined {
  if (args === undefined || args === null) return undefined;
  if (typeof args === 'string') return args;
  if (typeof args === 'object' && Object.keys(args).length === 0) return undefined;
  return JSON.stringify(args, null, 2);
}

/** A call's detail with every text capped and empty fields left out. */
export function toolCallDetail(call: {
  id?: string | null | undefined;
  name: string;
  input?: string | null | undefined;
  patch?: string | null | undefined;
  output?: string | null | undefined;
  isError?: boolean | undefined;
  exitCode?: number | null | undefined;
}): ToolCallDetail {
  const out: ToolCallDetail = { name: call.name };
  if (call.id) out.id = call.id;
  if (call.input) out.input = capText(call.input);
  if (call.patch) out.patch = capText(call.patch);
  if (call.output) out.output = capText(stripAnsi(call.output));
  if (call.isError) out.isError = true;
  if (typeof call.exitCode === 'number') out.exitCode = call.exitCode;
  return out;
}

/** A replacement of `before` by `after` as diff lines (no line numbers: the transcript does not give them). */
export function replacementPatch(before: string, after: string): string {
  const lines = (s: string, sign: string) => (s === '' ? [] : s.split('\n').map((l) => `${sign}${l}`));
  return [...lines(before, '-'), ...lines(after, '+')].join('\n');
}

/** A new file's text as added lines. */
export function addedPatch(text: string): string {
  return replacementPatch('', text.endsWith('\n') ? text.slice(0, -1) : text);
}

/** Usage with only the counts that are numbers; undefined when none is. */
export function tokenUsage(counts: Record<keyof TokenUsage, unknown>): TokenUsage | undefined {
  const out: TokenUsage = {};
  for (const [k, v] of Object.entries(counts))
    if (typeof v === 'number' && Number.isFinite(v)) out[k as keyof TokenUsage] = v;
  return Object.keys(out).length > 0 ? out : undefined;
}

// CSI (colours, cursor moves) and OSC (titles, links) escape sequences, and lone escapes.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** Text without terminal escape codes (they would print as noise in `retrace log` and the UI), for every agent. */
export function stripAnsi(text: string): string {
  return text.includes('\x1b') ? text.replace(ANSI, '') : text;
}

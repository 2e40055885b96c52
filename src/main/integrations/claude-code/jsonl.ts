/**
 * Reading a Claude Code JSONL file tolerantly: every line that is a JSON object is kept; a torn last line
 * (the agent was writing when we read) is dropped quietly; any other unparsable line is skipped with a
 * warning. `parseJsonlText` reads a string; `streamJsonl` reads a file line by line, so that a large
 * transcript never sits in memory as one string next to its parsed lines.
 */
import { createReadStream } from 'node:fs';

/** One JSON object line of a transcript. */
export interface JsonlEntry {
  /** 0-based line number in its file. */
  line: number;
  data: Record<string, unknown>;
}

export interface JsonlFile {
  entries: JsonlEntry[];
  /** The last line had no newline and was not valid JSON: a write in progress or a cut file. */
  truncatedLast: boolean;
  /** Lines that were neither JSON objects nor the torn last line. */
  malformed: number[];
}

export type JsonlProblems = Omit<JsonlFile, 'entries'>;

/** One line's verdict: an entry, or a problem noted in `problems`. */
function parseLine(raw: string, index: number, tornIfBad: boolean, problems: JsonlProblems): JsonlEntry | null {
  const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (text.trim() === '') return null;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    if (tornIfBad) problems.truncatedLast = true;
    else problems.malformed.push(index);
    return null;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    problems.malformed.push(index);
    return null;
  }
  return { line: index, data: data as Record<string, unknown> };
}

export function parseJsonlText(text: string): JsonlFile {
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  const entries: JsonlEntry[] = [];
  const problems: JsonlProblems = { truncatedLast: false, malformed: [] };
  for (let i = 0; i < lines.length; i++) {
    const isTorn = i === lines.length - 1 && !endsWithNewline;
    const e = parseLine(lines[i]!, i, isTorn, problems);
    if (e) entries.push(e);
  }
  return { entries, ...problems };
}

/**
 * Read `path` line by line, handing each JSON object line to `onEntry` (which may keep only what it needs).
 * Rejects with the file system's error (ENOENT, EISDIR…) when the file cannot be read.
 */
export async function streamJsonl(
  path: string,
  onEntry: (e: JsonlEntry) => void,
  onBytes?: (bytesRead: number) => void,
): Promise<JsonlProblems> {
  const problems: JsonlProblems = { truncatedLast: false, malformed: [] };
  // Lines are cut on the bytes ('\n' never occurs inside a UTF-8 sequence) and each decoded once.
  let pending: Buffer[] = [];
  let index = 0;
  let bytes = 0;
  const take = (raw: string, torn: boolean) => {
    const e = parseLine(raw, index++, torn, problems);
    if (e) onEntry(e);
  };
  for await (const data of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const chunk = data as Buffer;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      if (pending.length > 0) {
        pending.push(chunk.subarray(start, nl));
        take(Buffer.concat(pending).toString('utf8'), false);
        pending = [];
      } else take(chunk.toString('utf8', start, nl), false);
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
    bytes += chunk.length;
    onBytes?.(bytes);
  }
  if (pending.length > 0) take(Buffer.concat(pending).toString('utf8'), true);
  return problems;
}

/** Narrowing helpers for untyped JSON. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
export const arr = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);

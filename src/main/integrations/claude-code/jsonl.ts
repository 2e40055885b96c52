/**
 * Reading a Claude Code JSONL file tolerantly: every line that is a JSON object is kept with its exact text
 * (a fork copies lines byte-for-byte apart from `sessionId`); a torn last line (the agent was writing when we
 * read) is dropped quietly; any other unparsable line is skipped with a warning. Pure; no I/O.
 */

/** One JSON object line of a transcript. */
export interface JsonlEntry {
  /** 0-based line number in its file. */
  line: number;
  /** The line as written (without its newline). */
  raw: string;
  data: Record<string, unknown>;
}

export interface JsonlFile {
  entries: JsonlEntry[];
  /** The last line had no newline and was not valid JSON: a write in progress or a cut file. */
  truncatedLast: boolean;
  /** Lines that were neither JSON objects nor the torn last line. */
  malformed: number[];
}

export function parseJsonlText(text: string): JsonlFile {
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  const entries: JsonlEntry[] = [];
  const malformed: number[] = [];
  let truncatedLast = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const isLast = i === lines.length - 1;
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch {
      if (isLast && !endsWithNewline) truncatedLast = true;
      else malformed.push(i);
      continue;
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      malformed.push(i);
      continue;
    }
    entries.push({ line: i, raw, data: data as Record<string, unknown> });
  }
  return { entries, truncatedLast, malformed };
}

/** Narrowing helpers for untyped JSON. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
export const arr = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);

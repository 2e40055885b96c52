/**
 * Which agent wrote a transcript, from its shape alone (`retrace import auto`), and a plain description of what
 * an unknown file looked like. Reads at most the first few lines of a file; never the whole of it.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export type ImportFormat = 'claude-code' | 'codex' | 'gemini' | 'cline';

export interface Detection {
  format: ImportFormat | null;
  /** What it looked like, for people ("a Codex rollout", "JSON without a messages array"). */
  looksLike: string;
  /** What the importer takes, when not the path itself: a Cline task's folder, for one of its files. */
  target?: string;
  /** Neither a file nor a folder (a device, a pipe, a socket): no importer may read it, whatever was asked. */
  special?: true;
}

/** The files of a Cline task folder (ui_messages.json is the one that must be there). */
const CLINE_TASK_FILES = new Set(['ui_messages.json', 'api_conversation_history.json', 'task_metadata.json']);

const NAMES: Record<ImportFormat, string> = {
  'claude-code': 'a Claude Code transcript',
  codex: 'a Codex rollout',
  gemini: 'a Gemini CLI chat',
  cline: 'a Cline task folder',
};

export function describeFormat(f: ImportFormat): string {
  return NAMES[f];
}

export function detectFormat(path: string): Detection {
  if (!existsSync(path)) return { format: null, looksLike: 'nothing: no such file or folder' };
  const st = statSync(path);
  // Looked at before a byte is read: opening a pipe waits for a writer, and /dev/zero never ends.
  if (!st.isFile() && !st.isDirectory())
    return { format: null, looksLike: 'a device, pipe or socket, not a file', special: true };
  if (st.isDirectory()) {
    if (existsSync(join(path, 'ui_messages.json'))) return { format: 'cline', looksLike: NAMES.cline };
    return { format: null, looksLike: 'a folder without ui_messages.json' };
  }
  // One file of a Cline task given for its task: the importer reads the folder (a whole file: no head to judge).
  if (CLINE_TASK_FILES.has(basename(path)) && existsSync(join(dirname(path), 'ui_messages.json')))
    return { format: 'cline', looksLike: NAMES.cline, target: dirname(path) };
  const head = readHead(path, 64 * 1024);
  const lines = head.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return { format: null, looksLike: 'an empty file' };
  const first = parse(lines[0]!);
  // A single JSON document (Gemini's legacy chat) fits in the head only when small: judge by its start then.
  if (/^\s*\{\s*"(sessionId|projectHash)"/.test(head) && !first) return { format: 'gemini', looksLike: NAMES.gemini };
  if (!first) {
    const whole = parse(head);
    if (whole && Array.isArray(whole.messages) && 'sessionId' in whole)
      return { format: 'gemini', looksLike: NAMES.gemini };
    return {
      format: null,
      looksLike: head.trimStart().startsWith('{') ? 'JSON that is not one record per line' : 'text that is not JSON',
    };
  }
  if (Array.isArray(first.messages) && 'sessionId' in first) return { format: 'gemini', looksLike: NAMES.gemini };
  if (typeof first.type === 'string' && 'payload' in first && 'timestamp' in first)
    return { format: 'codex', looksLike: NAMES.codex };
  const records = lines
    .slice(0, 20)
    .map(parse)
    .filter((r): r is Record<string, unknown> => r !== null);
  if (
    records.some(
      (r) =>
        'parentUuid' in r ||
        ('uuid' in r && 'sessionId' in r) ||
        r.type === 'summary' ||
        r.type === 'file-history-snapshot',
    )
  )
    return { format: 'claude-code', looksLike: NAMES['claude-code'] };
  if ('sessionId' in first && !('type' in first)) return { format: 'gemini', looksLike: NAMES.gemini };
  return {
    format: null,
    looksLike: `JSON lines of an unknown kind (first keys: ${Object.keys(first).slice(0, 5).join(', ')})`,
  };
}

function readHead(path: string, max: number): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(max);
    const n = readSync(fd, buf, 0, max, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function parse(s: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(s) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Replaying Claude Code's file edits on text: Edit's old→new string replacement, MultiEdit's sequence of
 * them, and the `structuredPatch` hunks the tools report. Each returns null when the edit does not apply to
 * the text it is given (then the importer says it could not rebuild that file). Pure.
 */
import { arr, obj, str } from './jsonl';

export interface StringEdit {
  oldString: string;
  newString: string;
  replaceAll?: boolean;
}

export function applyStringEdit(text: string, edit: StringEdit): string | null {
  if (edit.oldString === '') return text === '' ? edit.newString : null; // Edit with old_string "" creates a file
  if (!text.includes(edit.oldString)) return null;
  if (edit.replaceAll) return text.split(edit.oldString).join(edit.newString);
  const at = text.indexOf(edit.oldString);
  return text.slice(0, at) + edit.newString + text.slice(at + edit.oldString.length);
}

export function applyStringEdits(text: string, edits: StringEdit[]): string | null {
  let cur: string | null = text;
  for (const e of edits) {
    if (cur === null) return null;
    cur = applyStringEdit(cur, e);
  }
  return cur;
}

/** Read edits from tool input or result JSON (`old_string`/`oldString`, `new_string`/`newString`, `replace_all`). */
export function toStringEdit(v: unknown): StringEdit | null {
  const o = obj(v);
  if (!o) return null;
  const oldString = str(o.oldString) ?? str(o.old_string);
  const newString = str(o.newString) ?? str(o.new_string);
  if (oldString === undefined || newString === undefined) return null;
  return { oldString, newString, replaceAll: o.replaceAll === true || o.replace_all === true };
}

export function toStringEdits(v: unknown): StringEdit[] | null {
  const list = arr(v);
  if (!list) return null;
  const edits = list.map(toStringEdit);
  return edits.every((e): e is StringEdit => e !== null) ? edits : null;
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export function toHunks(v: unknown): Hunk[] | null {
  const list = arr(v);
  if (!list) return null;
  const hunks: Hunk[] = [];
  for (const h of list) {
    const o = obj(h);
    const lines = arr(o?.lines);
    if (!o || !lines || typeof o.oldStart !== 'number' || !lines.every((l) => typeof l === 'string')) return null;
    hunks.push({
      oldStart: o.oldStart,
      oldLines: typeof o.oldLines === 'number' ? o.oldLines : 0,
      newStart: typeof o.newStart === 'number' ? o.newStart : o.oldStart,
      newLines: typeof o.newLines === 'number' ? o.newLines : 0,
      lines: lines as string[],
    });
  }
  return hunks;
}

/**
 * Apply unified-diff hunks (1-based line numbers; lines prefixed ' ', '-', '+'; '\' markers ignored).
 * Context and removed lines must match the text exactly, or the patch is refused.
 */
export function applyHunks(text: string, hunks: Hunk[]): string | null {
  const endsWithNewline = text.endsWith('\n');
  const src = text === '' ? [] : (endsWithNewline ? text.slice(0, -1) : text).split('\n');
  const out: string[] = [];
  let pos = 0; // index into src of the next line not yet copied
  for (const h of [...hunks].sort((a, b) => a.oldStart - b.oldStart)) {
    const start = Math.max(0, h.oldLines === 0 ? h.oldStart : h.oldStart - 1);
    if (start < pos || start > src.length) return null;
    out.push(...src.slice(pos, start));
    pos = start;
    for (const line of h.lines) {
      const tag = line[0];
      const body = line.slice(1);
      if (tag === ' ' || tag === '-') {
        if (src[pos] !== body) return null;
        if (tag === ' ') out.push(body);
        pos++;
      } else if (tag === '+') out.push(body);
      else if (tag !== '\\') return null;
    }
  }
  out.push(...src.slice(pos));
  if (out.length === 0) return '';
  return out.join('\n') + (endsWithNewline || src.length === 0 ? '\n' : '');
}

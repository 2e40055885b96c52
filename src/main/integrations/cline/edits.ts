/**
 * The file edits of a Cline task as `ui_messages.json` records them: `newFileCreated` (the whole new file),
 * `editedExistingFile` (SEARCH/REPLACE blocks from replace_in_file, or the whole file from write_to_file),
 * each a `say:"tool"` (auto-approved) or `ask:"tool"` (the person was asked) message, and whether it was
 * applied. Pure.
 *
 * Applied or not — how we decide: Cline sends each tool's outcome to the model in the next request, and
 * `ui_messages.json` keeps that request (`say:"api_req_started"`, JSON `request`) with one section per tool:
 * `[replace_in_file for 'PATH'] Result:` followed by "The content was successfully saved to …" plus the file
 * as saved (`<final_file_content path="…">…</final_file_content>`), or "The user denied this operation…"
 * when the person rejected it (with their feedback, which also comes as `say:"user_feedback"`). The real
 * sample shows the saved form after every one of its 27 edits. Where no such section is found: a `say:"tool"`
 * edit was auto-approved, so applied; an `ask:"tool"` edit counts as applied only when the task went on past
 * it with something other than the person's feedback (feedback instead of a result is how a rejection with
 * a message looks; an unanswered question at the end of the file was never approved).
 */
import type { ClineMessage } from './uiMessages';
import { looksLikeSearchReplace, parseSearchReplace, type SearchReplaceBlock } from './searchReplace';

export interface ClineEdit {
  /** Index of the tool message in the settled message list. */
  index: number;
  ts: number;
  /** The path as Cline wrote it (workspace-relative inside the workspace, else absolute). */
  path: string;
  /** create: a new file; write: a whole existing file rewritten; blocks: SEARCH/REPLACE blocks. */
  kind: 'create' | 'write' | 'blocks';
  /** The whole file (create, write). */
  content?: string;
  /** The blocks (blocks); null when the diff is not well formed. */
  blocks?: SearchReplaceBlock[] | null;
  /** The file as saved, from the result Cline sent the model, when it says. */
  saved?: string;
}

export interface ClineEditScan {
  applied: ClineEdit[];
  /** Edits the person rejected or never approved, or a tool that failed. */
  notApplied: { edit: ClineEdit; reason: string }[];
}

const EDIT_TOOLS = new Set(['newFileCreated', 'editedExistingFile']);
const RESULT_HEADER = /^\[([a-z_]+) for '([^'\n]*)'\] Result:$/gm;
const FINAL_CONTENT = /<final_file_content path="([^"]*)">\n([\s\S]*?)\n<\/final_file_content>/g;

export function findClineEdits(list: ClineMessage[]): ClineEditScan {
  const applied: ClineEdit[] = [];
  const notApplied: { edit: ClineEdit; reason: string }[] = [];
  list.forEach((m, index) => {
    const edit = editOf(m, index);
    if (!edit) return;
    if (m.partial) {
      notApplied.push({ edit, reason: 'the tool call was cut off while streaming' });
      return;
    }
    const outcome = outcomeOf(list, index, edit.path);
    if (outcome.kind === 'result') {
      if (/^The user denied this operation/.test(outcome.text))
        notApplied.push({ edit, reason: 'the person rejected the edit' });
      else if (/^Skipping tool/.test(outcome.text))
        notApplied.push({ edit, reason: 'skipped after the person rejected an earlier tool' });
      else if (/^(?:Error|The tool execution failed)/.test(outcome.text))
        notApplied.push({ edit, reason: 'the tool failed' });
      else {
        const saved = savedContent(outcome.text, edit.path);
        applied.push(saved !== undefined ? { ...edit, saved } : edit);
      }
      return;
    }
    if (m.type === 'say') applied.push(edit);
    else if (outcome.kind === 'feedback')
      notApplied.push({ edit, reason: 'the person answered with feedback instead' });
    else if (outcome.kind === 'nothing') notApplied.push({ edit, reason: 'the edit was never approved' });
    else applied.push(edit);
  });
  return { applied, notApplied };
}

function editOf(m: ClineMessage, index: number): ClineEdit | null {
  if ((m.type === 'say' ? m.say : m.ask) !== 'tool' || typeof m.text !== 'string') return null;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(m.text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof o.tool !== 'string' || !EDIT_TOOLS.has(o.tool) || typeof o.path !== 'string') return null;
  const base = { index, ts: m.ts, path: o.path };
  const diff = typeof o.diff === 'string' ? o.diff : undefined;
  const content = typeof o.content === 'string' ? o.content : undefined;
  if (o.tool === 'newFileCreated') return { ...base, kind: 'create', content: content ?? '' };
  // Newer builds put replace_in_file's blocks in `diff`; older ones in `content` ("diff || content").
  const text = diff ?? content ?? '';
  if (diff !== undefined || looksLikeSearchReplace(text))
    return { ...base, kind: 'blocks', blocks: parseSearchReplace(text) };
  return { ...base, kind: 'write', content: text };
}

type Outcome = { kind: 'result'; text: string } | { kind: 'feedback' } | { kind: 'went-on' } | { kind: 'nothing' };

/** What followed an edit: its section in the next request, else the next thing shown. */
function outcomeOf(list: ClineMessage[], index: number, path: string): Outcome {
  let next: Outcome = { kind: 'nothing' };
  for (let i = index + 1; i < list.length; i++) {
    const m = list[i]!;
    if (m.type === 'say' && m.say === 'api_req_started') {
      const section = resultSection(requestOf(m.text), path);
      if (section !== undefined) return { kind: 'result', text: section };
      return next.kind === 'nothing' ? { kind: 'went-on' } : next;
    }
    if (next.kind !== 'nothing') continue;
    if (m.type === 'say' && m.say === 'user_feedback') next = { kind: 'feedback' };
    else if (!(m.type === 'ask' && (m.ask === 'resume_task' || m.ask === 'resume_completed_task')))
      next = { kind: 'went-on' };
  }
  return next;
}

function requestOf(text: string | undefined): string {
  try {
    const o = JSON.parse(text ?? '') as { request?: unknown };
    return typeof o.request === 'string' ? o.request : '';
  } catch {
    return '';
  }
}

/** The text after `[tool for 'path'] Result:` up to the next tool's header, when the request has one. */
function resultSection(request: string, path: string): string | undefined {
  const headers = [...request.matchAll(RESULT_HEADER)];
  for (const [k, h] of headers.entries()) {
    if (!samePath(h[2]!, path)) continue;
    const start = h.index + h[0].length + 1;
    const end = headers[k + 1]?.index ?? request.length;
    return request.slice(start, end);
  }
  return undefined;
}

function savedContent(section: string, path: string): string | undefined {
  for (const m of section.matchAll(FINAL_CONTENT)) if (samePath(m[1]!, path)) return m[2]!;
  return undefined;
}

/** Cline names a file relative to the workspace in the tool message and absolute in the result. */
function samePath(a: string, b: string): boolean {
  const x = a.replace(/\\/g, '/');
  const y = b.replace(/\\/g, '/');
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}

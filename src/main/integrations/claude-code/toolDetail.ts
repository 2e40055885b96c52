/**
 * A Claude Code tool call as the Message region shows it: a Bash call's command, an edit as diff lines (the
 * tool's own `structuredPatch` when it reported one, else the edit's old and new strings), a Write's text as
 * added lines, any other call's input as JSON; and what the call gave back. Pure.
 */
import type { ToolCallDetail } from '../../../shared/model';
import { addedPatch, argsText, replacementPatch, toolCallDetail } from '../details';
import { toHunks, toStringEdit, toStringEdits } from './edits';
import { obj, str } from './jsonl';
import { PackedText } from './packedText';

/**
 * Input keys the patch shows (and the file, which the message names): left out of the input shown beside it.
 */
const PATCH_KEYS = [
  'old_string',
  'new_string',
  'edits',
  'content',
  'new_source',
  'replace_all',
  'file_path',
  'notebook_path',
];

export interface ToolOutcome {
  /** The result's text as the model saw it. */
  output: string;
  isError: boolean;
  /** The line's `toolUseResult` (structuredPatch, …). */
  report: unknown;
}

export function claudeToolDetail(id: string, name: string, input: unknown, outcome?: ToolOutcome): ToolCallDetail {
  const inp = obj(input) ?? {};
  const patch = reportedPatch(outcome?.report) ?? inputPatch(name, inp);
  const command = name === 'Bash' ? str(inp.command) : undefined;
  let shown: string | undefined;
  if (command !== undefined) shown = command;
  else if (patch) shown = argsText(Object.fromEntries(Object.entries(inp).filter(([k]) => !PATCH_KEYS.includes(k))));
  else shown = argsText(textOf(input));
  return toolCallDetail({
    id,
    name,
    input: shown,
    patch,
    output: outcome?.output,
    isError: outcome?.isError,
  });
}

/** The tool's report of the change, as unified diff hunks. */
function reportedPatch(report: unknown): string | undefined {
  const hunks = toHunks(obj(report)?.structuredPatch);
  if (!hunks || hunks.length === 0) return undefined;
  return hunks
    .map((h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines].join('\n'))
    .join('\n');
}

/** The change as the call asked for it (no report: the call failed, was refused, or the report is not kept). */
function inputPatch(name: string, inp: Record<string, unknown>): string | undefined {
  if (name === 'Edit') {
    const e = toStringEdit(inp);
    return e ? replacementPatch(e.oldString, e.newString) : undefined;
  }
  if (name === 'MultiEdit') {
    const edits = toStringEdits(inp.edits);
    return edits?.map((e) => replacementPatch(e.oldString, e.newString)).join('\n@@\n');
  }
  if (name === 'Write') {
    const content = textOf(inp.content);
    return typeof content === 'string' ? addedPatch(content) : undefined;
  }
  return undefined;
}

/** A Write's content is held deflated once the line is slimmed (slim.ts): its text again. */
function textOf(v: unknown): unknown {
  if (v instanceof PackedText) return v.toString();
  const o = obj(v);
  if (!o) return v;
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, x instanceof PackedText ? x.toString() : x]));
}

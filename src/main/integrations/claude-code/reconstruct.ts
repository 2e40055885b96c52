/**
 * What the files looked like at each step of an imported Claude Code session, rebuilt from what the
 * transcript holds: Edit/MultiEdit results (`originalFile`, old→new strings, `structuredPatch`), Write
 * contents, and the file-history backups `/rewind` uses. Sub-agent edits count at the Task call that ran them.
 *
 * Each checkpoint gets the state of every file the agent touched so far (content, or null = absent); a file
 * whose state cannot be told is left out (the importer keeps the workspace's current content for it) and is
 * listed as missing. Pure: backups are read through a callback.
 */
import { obj, str } from './jsonl';
import { isText, textOf, type PackedText } from './packedText';
import type { Conversation, ConversationMessage, ToolResult, ToolUse } from './types';
import {
  applyHunks,
  applyStringEdit,
  applyStringEdits,
  toHunks,
  toStringEdit,
  toStringEdits,
  type Hunk,
  type StringEdit,
} from './edits';

/** null: the file does not exist at that step. */
export type FileState = string | null;

export interface StepCheckpoint {
  /** Index into `conversation.messages` of the message that carries the checkpoint. */
  messageIndex: number;
  /** Workspace-relative path → state, for each touched file whose state is known at this step. */
  states: Map<string, FileState>;
  /** Files this step changed and that were rebuilt. */
  rebuilt: string[];
  /** Files this step touched that could not be rebuilt (outside the workspace: absolute paths). */
  missing: string[];
}

/** Where one successful Edit/Write/MultiEdit/NotebookEdit of the transcript ended up. */
export interface EditAccount {
  toolUseId: string;
  /** Workspace-relative, or absolute when outside it or not known relative. */
  path: string;
  status: 'rebuilt' | 'missing' | 'hidden';
  /** Why it is missing or hidden. */
  reason?: string;
}

export const EDIT_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

export interface Reconstruction {
  checkpoints: StepCheckpoint[];
  /** Every successful file edit of the transcript, once each. */
  edits: EditAccount[];
  /** Every workspace-relative path the session touched. */
  touched: string[];
  /** Touched paths outside the workspace (absolute), which no checkpoint can hold. */
  outside: string[];
  /** Files whose content before an edit differed from the state rebuilt so far (changed by Bash or the user). */
  drift: string[];
  warnings: string[];
}

export interface ReconstructOptions {
  /** Content of `~/.claude/file-history/<sessionId>/<name>`, or undefined when it is not there. */
  readBackup?: (backupFileName: string) => string | undefined;
}

interface FileEvent {
  toolUseId: string;
  tool: string;
  /** Workspace-relative, or null when outside the workspace. */
  path: string | null;
  absolute: string;
  /**
   * State before the tool ran, when the transcript says (undefined: not said); packed when the reader kept
   * the text deflated (slim.ts), decoded only when used.
   */
  before?: FileState | PackedText;
  /** State after, when the transcript says it outright. */
  after?: FileState | PackedText;
  /** Otherwise: derive it from the state before. */
  transform?: (before: string) => string | null;
  ts: string;
  order: number;
}

export function reconstructSteps(conv: Conversation, opts: ReconstructOptions = {}): Reconstruction {
  const warnings: string[] = [];
  const cwd = conv.cwd;
  const messages = conv.messages;
  const visibleIdx = messages.map((m, i) => (m.hidden ? -1 : i)).filter((i) => i >= 0);

  // Where each tool call's result is shown in the main thread.
  const hostOfToolUse = new Map<string, number>();
  for (const i of visibleIdx) {
    const m = messages[i]!;
    if (m.kind === 'tool' && m.toolUseId && !hostOfToolUse.has(m.toolUseId)) hostOfToolUse.set(m.toolUseId, i);
  }
  const mainResultLines = new Set(conv.mainChain.map((l) => l.uuid));

  // Events hosted by the message whose checkpoint will show them.
  const eventsAt = new Map<number, FileEvent[]>();
  const host = (i: number, ev: FileEvent) => {
    const list = eventsAt.get(i) ?? [];
    list.push(ev);
    eventsAt.set(i, list);
  };
  let order = 0;
  const sideThreadOf = new Map<string, string | undefined>();
  for (const t of conv.subagents) for (const l of t.lines) sideThreadOf.set(l.uuid, t.taskToolUseId);

  const edits = new Map<string, EditAccount>();
  const account = (a: EditAccount) => {
    if (!edits.has(a.toolUseId) || a.status === 'rebuilt') edits.set(a.toolUseId, a);
  };
  for (const r of conv.hiddenToolResults) {
    const use = conv.toolUses.get(r.toolUseId);
    if (!use || !succeeded(use, r)) continue;
    account({ toolUseId: use.id, path: editPath(use, r), status: 'hidden', reason: 'on a rewound branch' });
  }
  for (const r of conv.toolResults) {
    const use = conv.toolUses.get(r.toolUseId);
    if (!use || !succeeded(use, r)) continue;
    const ev = fileEvent(use, r, cwd, order++);
    if (!ev) {
      account({
        toolUseId: use.id,
        path: editPath(use, r),
        status: 'missing',
        reason: 'the transcript does not name the file',
      });
      continue;
    }
    let at: number | undefined;
    if (mainResultLines.has(r.line.uuid)) at = hostOfToolUse.get(r.toolUseId);
    else {
      const task = sideThreadOf.get(r.line.uuid);
      at = task !== undefined ? hostOfToolUse.get(task) : undefined;
      // A sub-agent we cannot tie to its Task: its edits count at the first step at or after them.
      at ??= firstVisibleAtOrAfter(messages, visibleIdx, r.line.ts);
    }
    if (at === undefined) {
      account({
        toolUseId: use.id,
        path: ev.absolute,
        status: 'missing',
        reason: 'no step of the conversation holds it',
      });
      continue;
    }
    host(at, ev);
  }
  for (const list of eventsAt.values()) list.sort((a, b) => (a.ts === b.ts ? a.order - b.order : a.ts < b.ts ? -1 : 1));

  // File-history snapshots, at the prompt they belong to.
  const snapshotAt = new Map<number, Map<string, FileState>>();
  const promptIndex = new Map<string, number>();
  for (const i of visibleIdx) {
    const m = messages[i]!;
    if (m.kind === 'prompt' || m.kind === 'system') for (const u of m.uuids) promptIndex.set(u, i);
  }
  let unreadable = 0;
  for (const snap of conv.snapshots) {
    const i = promptIndex.get(snap.messageId);
    if (i === undefined) continue;
    const states = new Map<string, FileState>();
    for (const [p, backup] of snap.backups) {
      const rel = toWorkspacePath(p, cwd);
      if (rel === null) continue;
      if (backup === null) states.set(rel, null);
      else {
        const content = opts.readBackup?.(backup);
        if (content === undefined) unreadable++;
        else states.set(rel, content);
      }
    }
    if (states.size > 0) snapshotAt.set(i, states);
  }
  if (unreadable > 0)
    warnings.push(
      `${unreadable} file-history backup(s) named in the transcript are not on disk (cleaned up after 30 days by default)`,
    );

  const carries = (i: number) => messages[i]!.kind === 'prompt' || eventsAt.has(i);

  // The state each file had before the session touched it: its first observation, if that tells it.
  const cur = new Map<string, FileState>();
  const touched = new Set<string>();
  const outside = new Set<string>();
  const decided = new Set<string>();
  for (const i of visibleIdx) {
    for (const [p, s] of snapshotAt.get(i) ?? []) {
      if (!decided.has(p)) {
        decided.add(p);
        cur.set(p, s);
      }
    }
    for (const ev of eventsAt.get(i) ?? []) {
      if (ev.path === null) {
        outside.add(ev.absolute);
        continue;
      }
      touched.add(ev.path);
      if (decided.has(ev.path)) continue;
      decided.add(ev.path);
      if (ev.before !== undefined) cur.set(ev.path, textOf(ev.before));
    }
  }
  for (const p of snapshotAt.values()) for (const path of p.keys()) touched.add(path);

  const checkpoints: StepCheckpoint[] = [];
  let rebuilt = new Set<string>();
  let missing = new Set<string>();
  const drift = new Set<string>();
  for (const i of visibleIdx) {
    for (const [p, s] of snapshotAt.get(i) ?? []) cur.set(p, s);
    for (const ev of eventsAt.get(i) ?? []) {
      if (ev.path === null) {
        missing.add(ev.absolute);
        account({ toolUseId: ev.toolUseId, path: ev.absolute, status: 'missing', reason: 'outside the workspace' });
        continue;
      }
      if (ev.before !== undefined) {
        const before = textOf(ev.before);
        const known = cur.get(ev.path);
        if (cur.has(ev.path) && known !== before) drift.add(ev.path);
        // The same text as the state rebuilt so far: keep that one string, not a second copy of it.
        cur.set(ev.path, known === before ? known : before);
      }
      let after: FileState | undefined = ev.after === undefined ? undefined : textOf(ev.after);
      if (after === undefined && ev.transform) {
        const prev = cur.get(ev.path);
        const base = typeof prev === 'string' ? prev : prev === null ? '' : undefined;
        const next = base === undefined ? null : ev.transform(base);
        after = next === null ? undefined : next;
      }
      if (after === undefined) {
        cur.delete(ev.path);
        missing.add(ev.path);
        rebuilt.delete(ev.path);
        account({ toolUseId: ev.toolUseId, path: ev.path, status: 'missing', reason: whyNotRebuilt(ev) });
      } else {
        cur.set(ev.path, after);
        rebuilt.add(ev.path);
        missing.delete(ev.path);
        account({ toolUseId: ev.toolUseId, path: ev.path, status: 'rebuilt' });
      }
    }
    if (!carries(i)) continue;
    checkpoints.push({ messageIndex: i, states: new Map(cur), rebuilt: [...rebuilt], missing: [...missing] });
    rebuilt = new Set();
    missing = new Set();
  }
  if (drift.size > 0)
    warnings.push(
      `${drift.size} file(s) changed between steps in ways the transcript does not show (Bash, the user): ${[...drift].sort().join(', ')}`,
    );
  return {
    checkpoints,
    edits: [...edits.values()],
    touched: [...touched].sort(),
    outside: [...outside].sort(),
    drift: [...drift].sort(),
    warnings,
  };
}

function firstVisibleAtOrAfter(messages: ConversationMessage[], visibleIdx: number[], ts: string): number | undefined {
  for (const i of visibleIdx) {
    const m = messages[i]!;
    if ((m.kind === 'tool' || m.kind === 'prompt') && m.ts >= ts) return i;
  }
  return visibleIdx.at(-1);
}

/** A file-editing call that ran (an error result, or a result that is only an error string, did not). */
export function succeeded(use: ToolUse, r: ToolResult): boolean {
  return EDIT_TOOLS.has(use.name) && !r.isError && typeof r.result !== 'string';
}

function editPath(use: ToolUse, r: ToolResult): string {
  const input = obj(use.input) ?? {};
  return str(obj(r.result)?.filePath) ?? str(input.file_path) ?? str(input.notebook_path) ?? '(unnamed)';
}

function whyNotRebuilt(ev: FileEvent): string {
  if (ev.tool === 'NotebookEdit') return 'the transcript does not hold the notebook and no file-history backup has it';
  return 'the content before the edit is not known (no originalFile, no backup) or the edit does not apply to it';
}

/** What one successful tool call did to one file, as far as the transcript says. */
function fileEvent(use: ToolUse, r: ToolResult, cwd: string | null, order: number): FileEvent | null {
  const res = obj(r.result);
  const input = obj(use.input) ?? {};
  const name = use.name;
  const absolute = str(res?.filePath) ?? str(input.file_path) ?? str(input.notebook_path);
  if (!absolute) return null;
  const ev: FileEvent = {
    toolUseId: use.id,
    tool: name,
    path: toWorkspacePath(absolute, cwd),
    absolute,
    ts: r.line.ts,
    order,
  };
  const original = res?.originalFile;
  if (name === 'Write') {
    const content = [input.content, res?.content].find(isText);
    if (content !== undefined) ev.after = content;
    if (res?.type === 'create') ev.before = null;
    else if (isText(original)) ev.before = original;
  } else if (name === 'Edit') {
    if (isText(original)) ev.before = original;
    const edit = toStringEdit(res) ?? toStringEdit(input);
    const hunks = toHunks(res?.structuredPatch);
    ev.transform = (before) => editWith(before, edit ? [edit] : null, hunks);
  } else if (name === 'MultiEdit') {
    const originalContents = res?.originalFileContents ?? original;
    if (isText(originalContents)) ev.before = originalContents;
    const edits = toStringEdits(res?.edits) ?? toStringEdits(input.edits);
    const hunks = toHunks(res?.structuredPatch);
    ev.transform = (before) => editWith(before, edits, hunks);
  }
  // NotebookEdit: the transcript does not hold the notebook; only a file-history backup can tell.
  return ev;
}

function editWith(before: string, edits: StringEdit[] | null, hunks: Hunk[] | null): string | null {
  const byStrings = edits
    ? edits.length === 1
      ? applyStringEdit(before, edits[0]!)
      : applyStringEdits(before, edits)
    : null;
  if (byStrings !== null) return byStrings;
  return hunks && hunks.length > 0 ? applyHunks(before, hunks) : null;
}

/**
 * `cwd`-relative '/'-separated path for a path the agent used, or null when it is outside the workspace or
 * names something a checkpoint must never hold (`..`, any `.git`).
 */
export function toWorkspacePath(path: string, cwd: string | null): string | null {
  let rel: string;
  if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path)) {
    if (!cwd) return null;
    const base = cwd.replace(/[\\/]+$/, '');
    const p = path.replace(/\\/g, '/');
    const b = base.replace(/\\/g, '/');
    if (!p.startsWith(`${b}/`)) return null;
    rel = p.slice(b.length + 1);
  } else rel = path.replace(/\\/g, '/');
  const parts = rel.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.length === 0 || parts.some((s) => s === '..' || s === '.git')) return null;
  return parts.join('/');
}

/**
 * What the files looked like after each applied edit of a Cline task, rebuilt from `ui_messages.json` when
 * Cline's shadow repository is not there: one step per applied edit, holding the state of every file the
 * task touched so far (content, or null = absent); a file whose state cannot be told is left out (the
 * importer keeps the workspace's current content for it).
 *
 * A step is rebuilt when the file's content after the edit is known: the whole file (newFileCreated, a
 * whole-file write), the file as saved (the tool result's final content), or the SEARCH/REPLACE blocks
 * replayed on the content before. That earlier content is, in order: what an earlier edit of the task left;
 * for the task's first edit of a file, the first later content known (the saved file, else the workspace as
 * it is now) walked back through the blocks in between. Otherwise the step is reported missing with its
 * reason. Pure: the workspace is read through a callback.
 */
import { isHardExcluded } from '../../engine/excludes';
import { toWorkspacePath } from '../claude-code/reconstruct';
import type { FileState } from '../stepTrees';
import type { ClineEdit } from './edits';
import { applySearchReplace, reverseSearchReplace } from './searchReplace';

export interface MissingStep {
  path: string;
  reason: string;
}

export interface ClineStep {
  edit: ClineEdit;
  /** Workspace-relative path → state, for each touched file whose state is known after this edit. */
  states: Map<string, FileState>;
  rebuilt: string[];
  missing: MissingStep[];
}

export interface ClineReconstruction {
  /** States before the task's first edit (for checkpoints before it). */
  initial: Map<string, FileState>;
  steps: ClineStep[];
  /** Every workspace-relative path the task edited. */
  touched: string[];
  warnings: string[];
}

export interface ClineReconstructOptions {
  cwd: string;
  /** The workspace file now: its content, null when absent, undefined when unreadable. */
  readWorkspace: (relPath: string) => string | null | undefined;
}

export function reconstructClineEdits(edits: ClineEdit[], opts: ClineReconstructOptions): ClineReconstruction {
  const byPath = new Map<string, ClineEdit[]>();
  for (const e of edits) {
    const p = toWorkspacePath(e.path, opts.cwd);
    if (p === null || isHardExcluded(p)) continue;
    byPath.set(p, [...(byPath.get(p) ?? []), e]);
  }
  const initial = new Map<string, FileState>();
  for (const [p, list] of byPath) {
    const s = stateBefore(list, () => opts.readWorkspace(p));
    if (s !== undefined) initial.set(p, s);
  }

  const cur = new Map(initial);
  const steps: ClineStep[] = [];
  const drift = new Set<string>();
  for (const edit of edits) {
    const p = toWorkspacePath(edit.path, opts.cwd);
    const step = (rebuilt: string[], missing: MissingStep[]) =>
      steps.push({ edit, states: new Map(cur), rebuilt, missing });
    if (p === null) {
      step([], [{ path: edit.path, reason: unholdableReason(edit.path, opts.cwd) }]);
      continue;
    }
    if (isHardExcluded(p)) {
      step([], [{ path: p, reason: 'excluded from checkpoints' }]);
      continue;
    }
    const before = cur.get(p);
    const replayed = replay(edit, before);
    if (edit.saved !== undefined && typeof replayed === 'string' && replayed !== edit.saved) drift.add(p);
    const after = edit.saved ?? replayed;
    if (typeof after === 'string') {
      cur.set(p, after);
      step([p], []);
    } else {
      cur.delete(p);
      step([], [{ path: p, reason: after.reason }]);
    }
  }
  const warnings: string[] = [];
  if (drift.size > 0)
    warnings.push(
      `${drift.size} file(s) were saved differently from what the edit alone gives (formatter, the person's changes in the diff view): ${[...drift].sort().join(', ')}`,
    );
  return { initial, steps, touched: [...byPath.keys()].sort(), warnings };
}

/** Why toWorkspacePath refused a path: it lies outside the workspace, or names `..` / a `.git` folder. */
function unholdableReason(path: string, cwd: string): string {
  const p = path.replace(/\\/g, '/');
  const absolute = p.startsWith('/') || /^[A-Za-z]:\//.test(p);
  const base = cwd.replace(/\\/g, '/').replace(/\/+$/, '');
  if ((absolute && !p.startsWith(`${base}/`)) || p.split('/').includes('..')) return 'outside the workspace';
  return 'inside a .git folder, which checkpoints never hold';
}

/** The content after one edit, from the content before it (undefined: unknown). */
function replay(edit: ClineEdit, before: FileState | undefined): string | { reason: string } {
  if (edit.kind !== 'blocks') return edit.content ?? '';
  if (!edit.blocks) return { reason: 'the edit is not well-formed SEARCH/REPLACE blocks' };
  if (before === undefined)
    return {
      reason:
        'the content before the edit is unknown: not created in this task, no saved content in the result, and the workspace copy does not walk back through the later edits',
    };
  if (before === null) return { reason: 'the file did not exist before the edit' };
  return applySearchReplace(before, edit.blocks) ?? { reason: "the SEARCH blocks do not match the file's content" };
}

/**
 * A file's state before the task's first edit of it: absent for a new file; for blocks, the first content
 * known after it (a saved result, else the workspace now) walked back through the blocks up to it.
 */
function stateBefore(list: ClineEdit[], workspace: () => string | null | undefined): FileState | undefined {
  const first = list[0]!;
  if (first.kind === 'create') return null;
  if (first.kind === 'write') return undefined;
  let k = 0;
  while (k < list.length && list[k]!.kind === 'blocks' && list[k]!.saved === undefined) k++;
  let from: string | null | undefined;
  if (k === list.length) from = workspace();
  else if (list[k]!.kind === 'blocks') from = list[k]!.saved;
  else return undefined; // a later whole-file write: what stood before it is not said
  if (typeof from !== 'string') return undefined;
  let s: string | null = from;
  for (let i = Math.min(k, list.length - 1); i >= 0 && s !== null; i--) {
    const blocks = list[i]!.blocks;
    s = blocks ? reverseSearchReplace(s, blocks) : null;
  }
  return s ?? undefined;
}

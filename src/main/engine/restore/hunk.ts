/**
 * One hunk of one file's diff (from → to), put into the file as it is now: "revert" takes the hunk's change
 * back (its lines as `from` has them), "restore" brings the compared checkpoint's version of it (the `to`
 * lines; when `to` is the files now, the compared checkpoint is `from`, so it is the same as revert).
 *
 * The hunk is applied as a three-way merge of that one file by git (git/mergeTree.ts), base = the side the
 * hunk changes, theirs = that side with only the hunk changed, ours = the file now: lines changed elsewhere
 * in the file since are kept, and lines changed in the hunk since are E_CONFLICT, nothing changed. The merged
 * file goes through the restore transaction (paths = [the file]): safety checkpoint, ledger, undo.
 */
import { RetraceError } from '../../../shared/errors';
import type { HunkResult, RestoreTarget } from '../../../shared/model';
import type { WorkspaceContext } from '../context';
import { EMPTY_TREE } from '../git/objects';
import { checkWorkspacePath } from '../paths';
import { resolveCheckpoint, resolveCommit } from '../read/resolve';
import { newRestoreId } from '../sessions/ids';
import type { ShadowRepo } from '../shadow';
import { transact } from './transaction';

/** Line ranges, 0-based; a count of 0 is an insertion point (the lines go before `start`). */
export interface HunkRange {
  fromStart: number;
  fromCount: number;
  toStart: number;
  toCount: number;
}

export interface HunkRequest {
  /** A checkpoint, or null for the empty side (a file the step added). */
  from: string | null;
  /** A checkpoint, or 'working' for the files as they are now. */
  to: string;
  path: string;
  /** The file's name on the `from` side when it was renamed. */
  oldPath?: string;
  hunk: HunkRange;
  action: 'restore' | 'revert';
}

/** The caller holds the writer lock. */
export async function applyHunkLocked(ctx: WorkspaceContext, req: HunkRequest): Promise<HunkResult> {
  const rel = await checkWorkspacePath(ctx.ws.root, req.path);
  const oldRel = req.oldPath ? await checkWorkspacePath(ctx.ws.root, req.oldPath) : rel;
  const from = req.from === null ? null : await resolveCommit(ctx, req.from);
  const to = req.to === 'working' ? null : await resolveCommit(ctx, req.to);
  const compared = to ?? from;
  if (!compared) throw new RetraceError('E_INVALID_INPUT', 'a hunk needs a checkpoint on one side of the diff');
  const target: RestoreTarget = await resolveCheckpoint(ctx, compared);
  const shadow = await ctx.shadow();
  const fromLines = from ? await linesAt(shadow, from, oldRel) : [];
  const rid = newRestoreId();
  const mode = req.action === 'restore' ? 'code' : 'revert';
  const out = await transact(ctx, {
    rid,
    mode,
    target,
    codeTree: async (snapshotTree) => {
      const toLines = await linesAt(shadow, to ?? snapshotTree, rel);
      const h = withinLines(req.hunk, fromLines.length, toLines.length);
      const bringTo = req.action === 'restore' && to !== null;
      // base: the side the hunk changes; theirs: that side with only the hunk's lines from the other side.
      const [base, other, at, count, otherAt, otherCount] = bringTo
        ? [fromLines, toLines, h.fromStart, h.fromCount, h.toStart, h.toCount]
        : [toLines, fromLines, h.toStart, h.toCount, h.fromStart, h.fromCount];
      const theirs = [...base.slice(0, at), ...other.slice(otherAt, otherAt + otherCount), ...base.slice(at + count)];
      const now = (await shadow.treeEntries(snapshotTree, [rel])).get(rel);
      const fileMode = now?.mode ?? (await shadow.treeEntries(to ?? from!, [rel])).get(rel)?.mode ?? '100644';
      const [baseBlob, theirsBlob] = await Promise.all([join(base), join(theirs)].map((b) => shadow.writeBlob(b)));
      // Trees of this one file (the transaction writes only it): git's merge never reads the rest of the folder.
      const oneFile = (id: string | undefined) =>
        shadow.replaceInTree(EMPTY_TREE, id ? [{ path: rel, mode: fileMode, id }] : []);
      const merged = await shadow.mergeTrees({
        base: await oneFile(baseBlob),
        ours: await oneFile(now?.id),
        theirs: await oneFile(theirsBlob),
      });
      if (merged.conflicts.length > 0)
        throw new RetraceError(
          'E_CONFLICT',
          `cannot ${req.action} this hunk of ${rel}: the file changed there since; nothing was changed`,
        );
      return merged.tree;
    },
    paths: [rel],
    conversation: null,
    dryRun: false,
  });
  return { restore: rid, mode, target, safety: out.safety, changed: out.changed };
}

/** A text file's lines, each with its own line ending; a binary file has no hunks to take. */
async function linesAt(shadow: ShadowRepo, treeish: string, rel: string): Promise<string[]> {
  const file = await shadow.readFile(treeish, rel);
  if (!file) return [];
  if (file.mode === '120000' || file.bytes.includes(0))
    throw new RetraceError('E_INVALID_INPUT', `${rel} is not a text file: it has no hunks to restore or revert`);
  return file.bytes.toString('utf8').match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function join(lines: string[]): Buffer {
  return Buffer.from(lines.join(''), 'utf8');
}

/**
 * The hunk's ranges, checked against the two sides. An editor shows a file that ends in a newline with one
 * more, empty, line: a range that reaches exactly one past the last line is cut to the lines there are.
 */
function withinLines(h: HunkRange, fromLength: number, toLength: number): HunkRange {
  const fit = (start: number, count: number, length: number): number | null => {
    if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 0) return null;
    if (start + count <= length) return count;
    return count > 0 && start + count === length + 1 ? count - 1 : null;
  };
  const fromCount = fit(h.fromStart, h.fromCount, fromLength);
  const toCount = fit(h.toStart, h.toCount, toLength);
  if (fromCount === null || toCount === null)
    throw new RetraceError(
      'E_INVALID_INPUT',
      `the hunk's lines are outside the file (${fromLength} line(s) before, ${toLength} after): reload the diff`,
    );
  return { fromStart: h.fromStart, fromCount, toStart: h.toStart, toCount };
}

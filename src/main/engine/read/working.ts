/**
 * A checkpoint compared with the files as they are now, without the writer lock (I10): the folder is snapshotted
 * into a private copy of the index. A file the snapshot saw but could not store (over the size cap, unreadable)
 * is there all the same: it is shown as changed and marked, never as deleted.
 */
import type { FileChange } from '../../../shared/model';
import type { WorkspaceContext } from '../context';

export async function diffToWorking(ctx: Pick<WorkspaceContext, 'shadow'>, from: string | null): Promise<FileChange[]> {
  const shadow = await ctx.shadow();
  const { tree, notCaptured } = await shadow.snapshotTree({ privateIndex: true });
  const left = new Map(notCaptured.map((n) => [n.path, n.reason]));
  return (await shadow.diff(from, tree)).map((f) =>
    f.status === 'deleted' && left.has(f.path)
      ? { ...f, status: 'modified', insertions: 0, deletions: 0, notCaptured: left.get(f.path)! }
      : f,
  );
}

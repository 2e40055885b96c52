/** The banner's words for what a restore or an undo changed. */
import type { ErrorInfo } from '../../../shared/errors';
import type { RecoveryReport, RestoreResult, UndoResult } from '../../../shared/model';

export const shortHash = (hash: string) => hash.slice(0, 7);

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function fileList(paths: string[]): string {
  if (paths.length === 0) return '';
  const shown = paths.slice(0, 3).join(', ');
  return paths.length > 3 ? ` (${shown}, …)` : ` (${shown})`;
}

export function describeRestore(r: RestoreResult, paths?: string[]): string {
  const to = shortHash(r.target.hash);
  const files = `${plural(r.changed.length, 'file')} changed${fileList(r.changed)}`;
  const hidden = `${plural(r.hidden, 'later message')} hidden`;
  if (paths && paths.length > 0) return `Restored ${paths.join(', ')} to ${to}: ${files}.`;
  switch (r.mode) {
    case 'code':
      return `Restored code to ${to}: ${files}.`;
    case 'conversation':
      return `Restored the conversation to ${to}: ${hidden}.`;
    case 'both':
      return `Restored code and conversation to ${to}: ${files}, ${hidden}.`;
  }
}

export function describeUndo(r: UndoResult): string {
  return `Undid the restore: ${plural(r.changed.length, 'file')} changed back${fileList(r.changed)}.`;
}

/**
 * A restore that failed keeps its code; when the engine's recovery log has a roll-back since the restore
 * began, the message says that nothing was left half-done.
 */
export function describeFailedRestore(error: ErrorInfo, recovered: RecoveryReport[], since: string): ErrorInfo {
  const rolledBack = recovered.find((r) => r.kind === 'restore-rolled-back' && r.ts >= since);
  if (!rolledBack) return { code: error.code, message: `Restore failed: ${error.message}` };
  return {
    code: error.code,
    message: `Restore failed and was rolled back (your files are as they were): ${error.message}`,
  };
}

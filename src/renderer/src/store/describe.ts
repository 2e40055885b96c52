/** The banner's words for what a restore or an undo changed. */
import type { ErrorInfo } from '../../../shared/errors';
import type { RecoveryReport, RestoreEntry, RestoreResult } from '../../../shared/model';
import { restoreKind } from '../../../shared/undoWords';

export { describeUndo } from '../../../shared/undoWords';

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

/** A row of the Restores panel: what the entry did. */
export function describeEntry(e: RestoreEntry): string {
  const to = shortHash(e.target.hash);
  switch (e.mode) {
    case 'code':
      return `Restored code to ${to}`;
    case 'conversation':
      return `Restored the conversation to ${to}`;
    case 'both':
      return `Restored code and conversation to ${to}`;
    case 'revert':
      return `Reverted ${to}`;
    case 'undo':
      // Which entry it took back, so two undos of look-alike restores can be told apart.
      return `${e.redo ? 'Redid' : 'Undid'} the ${restoreKind(e)} to ${to} (${e.undoOf ?? '?'})`;
  }
}

/** Why the banner's entry can no longer be undone from it as it was, per the ledger; undefined when it still can. */
export function staleNote(e: RestoreEntry, all: RestoreEntry[]): string | undefined {
  if (e.undone) {
    const by = all.find((x) => x.undoOf === e.restore && !x.undone);
    return `Since then this was undone${by ? ` (${by.restore})` : ''} in another window or the terminal.`;
  }
  if (e.undoable === false) return 'A later restore changed the same files: undo that one first (see Restores).';
  return undefined;
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

import { useRef } from 'react';
import type { RestoreEntry } from '../../../shared/model';
import { undoLabel } from '../../../shared/undoWords';
import { closeRestores, undoRestore, useStore } from '../store';
import { describeEntry, plural } from '../store/describe';
import { RESTORES_BUTTON_ID } from './buttonIds';
import { usePanelFocus } from './usePanelFocus';

/**
 * Every restore, revert and undo of the workspace, newest first, read from the ledger (so it survives a reload
 * and agrees with every other window): each with Undo, or Redo for an undo, where the ledger allows it.
 */
export function RestoresPanel() {
  const open = useStore((s) => s.restoresOpen);
  const restores = useStore((s) => s.restores);
  const busy = useStore((s) => s.busy);
  const heading = useRef<HTMLHeadingElement>(null);

  usePanelFocus(open, heading, close);

  if (!open) return null;
  return (
    <section id="restores-panel" className="restores" aria-labelledby="restores-heading">
      <h2 id="restores-heading" ref={heading} tabIndex={-1}>
        Restores
      </h2>
      {restores.length === 0 ? (
        <p>No restores yet in this folder.</p>
      ) : (
        <ol aria-label="Restore history">
          {restores.map((e) => (
            <Row key={e.restore} entry={e} busy={busy} />
          ))}
        </ol>
      )}
      <button type="button" className="quiet" onClick={close}>
        Close
      </button>
    </section>
  );
}

function Row({ entry, busy }: { entry: RestoreEntry; busy: boolean }) {
  const descId = `restore-${entry.restore}`;
  const state = entry.undone ? 'undone' : entry.undoable === false ? 'a later restore changed the same files' : '';
  return (
    <li className={entry.undone ? 'restore-row undone' : 'restore-row'}>
      <span id={descId} className="restore-what">
        {describeEntry(entry)} · {new Date(entry.ts).toLocaleString()} · {plural(entry.changed, 'file')}
        {state && ` · ${state}`} <code className="restore-id">{entry.restore}</code>
      </span>
      {entry.undoable && (
        <button type="button" aria-describedby={descId} onClick={() => void undoRestore(entry.restore)} disabled={busy}>
          {undoLabel(entry)}
        </button>
      )}
    </li>
  );
}

function close(): void {
  closeRestores();
  document.getElementById(RESTORES_BUTTON_ID)?.focus();
}

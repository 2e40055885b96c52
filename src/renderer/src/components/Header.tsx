import { previewRestore, restore, toggleRestores, useStore } from '../store';
import { PREVIEW_BUTTON_ID, RESTORES_BUTTON_ID } from './buttonIds';
import { RecordChanges } from './RecordChanges';
import { StorageButton } from './StorageButton';
import { RevertStepButton } from './RevertStepButton';
import { SessionBrowser } from './SessionBrowser';

export function Header() {
  const workspace = useStore((s) => s.workspace);
  const canAct = useStore((s) => s.selected >= 0 && !s.busy);
  const restoresOpen = useStore((s) => s.restoresOpen);

  return (
    <header className="header">
      <div className="workspace" title={workspace?.root}>
        <span className="app-name">Retrace</span>
        <span className="workspace-path">{workspace?.root}</span>
      </div>
      <SessionBrowser />
      <RecordChanges />
      <StorageButton />
      <div className="actions">
        <button type="button" id={PREVIEW_BUTTON_ID} onClick={() => void previewRestore()} disabled={!canAct}>
          Preview restore
        </button>
        <button type="button" className="primary" onClick={() => void restore('code')} disabled={!canAct}>
          Restore code
        </button>
        <button type="button" onClick={() => void restore('conversation')} disabled={!canAct}>
          Restore conversation
        </button>
        <button type="button" onClick={() => void restore('both')} disabled={!canAct}>
          Restore both
        </button>
        <RevertStepButton />
        <button
          type="button"
          id={RESTORES_BUTTON_ID}
          aria-expanded={restoresOpen}
          aria-controls="restores-panel"
          onClick={toggleRestores}
        >
          Restores
        </button>
      </div>
    </header>
  );
}

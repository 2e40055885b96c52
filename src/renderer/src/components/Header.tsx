import { previewRestore, restore, selectSession, toggleRestores, useStore } from '../store';
import { RESTORES_BUTTON_ID } from './RestoresPanel';
import { StorageButton } from './StoragePanel';
import { RevertStepButton } from './RevertPreview';

export function Header() {
  const workspace = useStore((s) => s.workspace);
  const sessions = useStore((s) => s.sessions);
  const sessionId = useStore((s) => s.sessionId);
  const canAct = useStore((s) => s.selected >= 0 && !s.busy);
  const restoresOpen = useStore((s) => s.restoresOpen);

  return (
    <header className="header">
      <div className="workspace" title={workspace?.root}>
        <span className="app-name">Retrace</span>
        <span className="workspace-path">{workspace?.root}</span>
      </div>
      <label className="sessions">
        <span>Session</span>
        <select
          aria-label="Sessions"
          value={sessionId ?? ''}
          onChange={(e) => void selectSession(e.target.value)}
          disabled={sessions.length === 0}
        >
          {sessions.length === 0 && <option value="">No sessions</option>}
          {sessions.map((s) => (
            <option key={s.id} value={s.id}>
              {s.title || s.id} · {s.checkpoints} checkpoints
            </option>
          ))}
        </select>
      </label>
      <StorageButton />
      <div className="actions">
        <button type="button" onClick={() => void previewRestore()} disabled={!canAct}>
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

import { plural } from '../store/describe';
import { formatWhen } from '../format';
import { changeSettings, dismissFound, importFound, useSessions } from '../store/sessions';
import { AgentBadge } from './AgentBadge';

/** The "Found sessions" region itself (loaded when there is something to show; FoundSessions.tsx decides). */
export function FoundSessionsNotice() {
  const found = useSessions((s) => s.found);
  const open = useSessions((s) => s.foundOpen);
  const importing = useSessions((s) => s.importing);
  const settings = useSessions((s) => s.settings);
  const settingsBusy = useSessions((s) => s.settingsBusy);
  return (
    <section className="found-sessions" aria-label="Found sessions">
      <h2>
        {importing ? 'Importing agent sessions' : `Found ${plural(found.length, 'agent session')} for this folder`}
      </h2>
      {importing && (
        <div className="import-progress" role="status">
          <progress max={Math.max(1, importing.total)} value={importing.done} aria-label="Import progress" />
          <span>
            {importing.done} of {importing.total}
            {importing.title ? ` · ${importing.title}` : ''}
          </span>
        </div>
      )}
      {open && found.length > 0 && (
        <ul aria-label="Found session list">
          {found.map((s) => (
            <li key={`${s.agent}:${s.id}`} className="found-row">
              <AgentBadge agent={s.agent} />
              <span className="session-title" id={foundTitleId(s.agent, s.id)}>
                {s.title || s.id}
              </span>
              <time dateTime={s.updatedAt}>{formatWhen(s.updatedAt)}</time>
              {s.changed && <span className="found-changed">went on since its import</span>}
              <button
                type="button"
                aria-describedby={foundTitleId(s.agent, s.id)}
                onClick={() => void importFound(`${s.agent}:${s.id}`)}
                disabled={importing !== null}
              >
                Import
              </button>
            </li>
          ))}
        </ul>
      )}
      {open && (
        <div className="found-actions">
          <button
            type="button"
            className="primary"
            onClick={() => void importFound()}
            disabled={importing !== null || found.length === 0}
          >
            Import all
          </button>
          <label>
            <input
              type="checkbox"
              checked={settings?.alwaysImport ?? false}
              disabled={settings === null || settingsBusy}
              onChange={(e) => void changeSettings({ alwaysImport: e.target.checked })}
            />{' '}
            Always import
          </label>
          <button type="button" className="quiet" onClick={dismissFound}>
            Not now
          </button>
        </div>
      )}
    </section>
  );
}

const foundTitleId = (agent: string, id: string) => `found-${agent}-${id}`.replace(/[^A-Za-z0-9_-]/g, '_');

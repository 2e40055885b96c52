import { useEffect } from 'react';
import { api } from '../bridge';
import { useStore } from '../store';
import { plural } from '../store/describe';
import {
  changeSettings,
  dismissFound,
  folderOpened,
  formatWhen,
  handleSessionsEvent,
  importFound,
  useSessions,
} from '../store/sessions';
import { AgentBadge } from './AgentBadge';

/**
 * When a folder opens: the agents' sessions recorded there that are not in Retrace yet (or went on since), each
 * with an Import button, plus "Import all" and "Always import" (the folder then imports on opening, without
 * asking). Not modal: the timeline stays usable while it shows and while an import runs in the main process.
 */
export function FoundSessions() {
  const workspace = useStore((s) => s.workspace);
  const found = useSessions((s) => s.found);
  const open = useSessions((s) => s.foundOpen);
  const importing = useSessions((s) => s.importing);
  const settings = useSessions((s) => s.settings);
  const settingsBusy = useSessions((s) => s.settingsBusy);

  useEffect(() => api.onEvent(handleSessionsEvent), []);
  useEffect(() => {
    if (workspace) void folderOpened(workspace);
    // A new folder (by id), not a new object for the same one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [workspace?.id]);

  if (!open && !importing) return null;
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

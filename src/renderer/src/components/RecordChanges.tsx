import { changeSettings, useSessions } from '../store/sessions';

/**
 * "Record changes" for this folder: on, the main process (or `retrace serve`) checkpoints into a `watch` session
 * whenever file activity settles; the state is the service's (every window follows it through events).
 */
export function RecordChanges() {
  const settings = useSessions((s) => s.settings);
  const busy = useSessions((s) => s.settingsBusy);
  const on = settings?.recordChanges ?? false;
  return (
    <button
      type="button"
      role="switch"
      aria-checked={on}
      className={on ? 'record-switch on' : 'record-switch'}
      title="Take a checkpoint whenever files in this folder stop changing (for agents and editors without hooks)"
      disabled={settings === null || busy}
      onClick={() => void changeSettings({ recordChanges: !on })}
    >
      <span className="record-dot" aria-hidden="true" /> Record changes
    </button>
  );
}

import { changeSettings, useSessions } from '../store/sessions';

/**
 * "Record changes" for this folder: on, the main process (or `retrace serve`) checkpoints into a `watch` session
 * whenever file activity settles; the state is the service's (every window follows it through events).
 */
export function RecordChanges() {
  const settings = useSessions((s) => s.settings);
  const busy = useSessions((s) => s.settingsBusy);
  const on = settings?.recordChanges ?? false;
  const failing = on && settings?.recordError !== undefined;
  return (
    <button
      type="button"
      role="switch"
      aria-checked={on}
      className={on ? `record-switch on${failing ? ' failing' : ''}` : 'record-switch'}
      title="Take a checkpoint whenever files in this folder stop changing (for agents and editors without hooks)"
      disabled={settings === null || busy}
      onClick={() => void changeSettings({ recordChanges: !on })}
    >
      <span className="record-dot" aria-hidden="true" /> Record changes
    </button>
  );
}

/**
 * The watcher could not record what changed (a full disk, an unreadable file): said with its code, in every
 * window, until a later settle records again. It keeps the changes pending and retries by itself, so there is
 * nothing to dismiss; switching "Record changes" off ends it too.
 */
export function RecordChangesAlert() {
  const error = useSessions((s) => (s.settings?.recordChanges ? s.settings.recordError : undefined));
  if (!error) return null;
  return (
    <div role="alert" className="alert" aria-label="Record changes failed">
      <span className="alert-message">
        Record changes could not take a checkpoint: {error.message.replace(/\.$/, '')}. It tries again when files next
        change.
      </span>{' '}
      <code className="alert-code">{error.code}</code>
    </div>
  );
}

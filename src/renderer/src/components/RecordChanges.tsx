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
 * Why "Record changes" is not recording, with the code, in every window: on, a settle could not record (a full
 * disk, an unreadable file) and it retries at the next, so there is nothing to dismiss until one records; off, it
 * could not start (a folder opened with it left on has nobody else to tell) or its folder was deleted or replaced,
 * until it is switched on again.
 */
export function RecordChangesAlert() {
  const settings = useSessions((s) => s.settings);
  const error = settings?.recordError;
  if (!error) return null;
  const message = error.message.replace(/\.$/, '');
  return (
    <div role="alert" className="alert" aria-label="Record changes failed">
      <span className="alert-message">
        {settings.recordChanges
          ? `Record changes could not take a checkpoint: ${message}. It tries again when files next change.`
          : `Record changes stopped: ${message}. Switch it on to try again.`}
      </span>{' '}
      <code className="alert-code">{error.code}</code>
    </div>
  );
}

import { dismissError, useStore } from '../store';

export function ErrorAlert() {
  const error = useStore((s) => s.error);
  if (!error) return null;
  return (
    <div role="alert" className="alert">
      <span className="alert-message">{error.message}</span> <code className="alert-code">{error.code}</code>
      <button type="button" aria-label="Dismiss error" onClick={dismissError}>
        Dismiss
      </button>
    </div>
  );
}

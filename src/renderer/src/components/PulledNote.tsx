import { useStore } from '../store';

/** A session pulled from a git remote (`retrace pull`) says so, and who recorded it: it is read-only here. */
export function PulledNote() {
  const session = useStore((s) => s.sessions.find((x) => x.id === s.sessionId));
  if (!session?.readOnly) return null;
  return (
    <p className="pulled-note" role="note">
      Read-only: recorded by {session.recordedBy ?? 'someone else'} and pulled from a git remote. Its code can be
      restored; its conversation cannot be changed.
    </p>
  );
}

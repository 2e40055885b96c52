import { toggleBlame, useBlame } from '../store/blame';

/** The diff toolbar's "Blame" toggle. */
export function BlameToggle() {
  const on = useBlame((s) => s.on);
  return (
    <button type="button" className="toggle" aria-pressed={on} onClick={toggleBlame}>
      Blame
    </button>
  );
}

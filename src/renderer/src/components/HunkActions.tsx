import { useStore } from '../store';
import { applyHunk, describeLines, useRevert } from '../store/revert';

/**
 * The hunks of the diff shown, each with "Restore hunk" (the compared checkpoint's lines into the files now)
 * and "Revert hunk" (the change taken back from them): plain buttons, so the keyboard reaches every one; each
 * is described by the lines it acts on.
 */
export function HunkActions() {
  const fileKey = useStore((s) => s.fileKey);
  const file = useStore((s) => s.file);
  const busy = useStore((s) => s.busy);
  const hunksKey = useRevert((s) => s.hunksKey);
  const changes = useRevert((s) => s.lineChanges);
  if (!file || file.binary || file.tooLarge || hunksKey !== fileKey || changes.length === 0) return null;
  return (
    <section className="hunks" aria-label="Hunks">
      <ol>
        {changes.map((c, i) => {
          const id = `hunk-${i}`;
          return (
            <li key={`${c.modifiedStartLineNumber}-${c.originalStartLineNumber}-${i}`} className="hunk-row">
              <span id={id} className="hunk-lines">
                Hunk {i + 1}: {describeLines(c)}
              </span>
              <button type="button" aria-describedby={id} onClick={() => void applyHunk(i, 'restore')} disabled={busy}>
                Restore hunk
              </button>
              <button type="button" aria-describedby={id} onClick={() => void applyHunk(i, 'revert')} disabled={busy}>
                Revert hunk
              </button>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

import { shortHash } from '../store/describe';
import { closePreview, useStore } from '../store';

/** What "Restore code" would change, computed by a dry run. */
export function RestorePreview() {
  const preview = useStore((s) => s.preview);
  if (!preview) return null;
  const n = preview.changed.length;
  return (
    <section className="preview" aria-label="Restore preview">
      <h2>
        {n === 0
          ? `Restore code to ${shortHash(preview.target.hash)} would change nothing: the files already match.`
          : `Restore code to ${shortHash(preview.target.hash)} would change ${n} ${n === 1 ? 'file' : 'files'}:`}
      </h2>
      {n > 0 && (
        <ul aria-label="Files a restore would change">
          {preview.changed.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <button type="button" onClick={closePreview}>
        Close preview
      </button>
    </section>
  );
}

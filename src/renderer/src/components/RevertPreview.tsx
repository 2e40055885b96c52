import { useEffect, useLayoutEffect, useRef } from 'react';
import type { FileChange, FileContents } from '../../../shared/model';
import { languageForPath, monaco } from '../monaco';
import { useStore } from '../store';
import { plural, shortHash } from '../store/describe';
import { closeRevertPreview, confirmRevert, showPreviewFile, useRevert } from '../store/revert';

/** What "Revert this step" would do: the files, each file's merged result as a diff, and the conflicts. */
export function RevertPreview() {
  const preview = useRevert((s) => s.preview);
  const previewPath = useRevert((s) => s.previewPath);
  const file = useRevert((s) => s.previewFile);
  const busy = useStore((s) => s.busy);
  if (!preview) return null;
  const files = preview.preview?.files ?? [];
  const n = files.length;
  const conflicts = preview.conflicts;
  return (
    <section className="preview revert-preview" aria-label="Revert preview">
      <h2>
        {n === 0
          ? `Reverting the step of ${shortHash(preview.target.hash)} would change nothing: its changes are already gone.`
          : `Reverting the step of ${shortHash(preview.target.hash)} would change ${plural(n, 'file')}, keeping every later change:`}
      </h2>
      {conflicts.length > 0 && (
        <p className="revert-conflicts">
          Later steps changed the same lines in{' '}
          {conflicts.map((c) => `${c.path} (${plural(c.hunks, 'conflicting hunk')})`).join(', ')}. Reverting writes
          conflict markers there, as git does; Undo takes them out again.
        </p>
      )}
      {n > 0 && (
        <ul aria-label="Files the revert would change" className="revert-files">
          {files.map((f) => (
            <li key={f.path}>
              <button
                type="button"
                className="quiet"
                aria-pressed={previewPath === f.path}
                onClick={() => void showPreviewFile(f.path)}
              >
                {describeChange(f, conflicts.find((c) => c.path === f.path)?.hunks)}
              </button>
            </li>
          ))}
        </ul>
      )}
      {file && !file.binary && !file.tooLarge && <PreviewDiff file={file} />}
      {file && (file.binary || file.tooLarge) && (
        <p>
          {file.path}: {file.binary ? 'a binary file' : 'too large to show here'}.
        </p>
      )}
      <div className="revert-actions">
        <button type="button" className="primary" onClick={() => void confirmRevert()} disabled={busy || n === 0}>
          {conflicts.length > 0 ? 'Confirm revert with conflict markers' : 'Confirm revert'}
        </button>
        <button type="button" onClick={closeRevertPreview}>
          Cancel revert
        </button>
      </div>
    </section>
  );
}

function describeChange(f: FileChange, conflictHunks: number | undefined): string {
  const counts = f.binary ? 'binary' : `+${f.insertions} −${f.deletions}`;
  const name = f.oldPath ? `${f.oldPath} → ${f.path}` : f.path;
  const conflict = conflictHunks ? ` · conflict: ${plural(conflictHunks, 'hunk')}` : '';
  return `${name} · ${f.status} · ${counts}${conflict}`;
}

/** The files now (before) and the merged result (after) of one file, in a read-only Monaco diff. */
function PreviewDiff({ file }: { file: FileContents }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);

  useLayoutEffect(() => {
    const ed = monaco.editor.createDiffEditor(host.current!, {
      readOnly: true,
      originalEditable: false,
      domReadOnly: true,
      automaticLayout: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      renderOverviewRuler: false,
      fontSize: 12,
    });
    editor.current = ed;
    return () => {
      const model = ed.getModel();
      ed.dispose();
      model?.original.dispose();
      model?.modified.dispose();
      editor.current = null;
    };
  }, []);

  useEffect(() => {
    const ed = editor.current;
    if (!ed) return;
    const old = ed.getModel();
    const language = languageForPath(file.path);
    ed.getOriginalEditor().updateOptions({ ariaLabel: `Now: ${file.path}` });
    ed.getModifiedEditor().updateOptions({ ariaLabel: `After the revert: ${file.path}` });
    ed.setModel({
      original: monaco.editor.createModel(file.before ?? '', language),
      modified: monaco.editor.createModel(file.after ?? '', language),
    });
    if (old) setTimeout(() => (old.original.dispose(), old.modified.dispose()), 5000);
  }, [file]);

  return <div className="revert-diff" ref={host} data-testid="revert-diff" />;
}

import { useEffect, useMemo, useRef, useState } from 'react';
import type { FileChange } from '../../../shared/model';
import { previewRows } from '../previewRows';
import { closePreview, useStore } from '../store';
import { shortHash } from '../store/describe';
import { PREVIEW_BUTTON_ID } from './buttonIds';
import { usePanelFocus } from './usePanelFocus';

/**
 * What "Restore code" would change, computed by a dry run: each file with what the restore does to it (added,
 * modified, deleted, renamed) and its lines. Escape closes it, and focus goes back to "Preview restore".
 */
export function RestorePreview() {
  const preview = useStore((s) => s.preview);
  const workspace = useStore((s) => s.workspace?.id ?? null);
  const [since, setSince] = useState<{ hash: string; files: FileChange[] } | null>(null);
  const section = useRef<HTMLElement>(null);
  const hash = preview?.target.hash ?? null;

  // How each file differs now from the checkpoint (the restore goes the other way).
  useEffect(() => {
    if (!workspace || !hash || !preview?.changed.length) return;
    let live = true;
    void useStore
      .getState()
      .scope.diffs.loadSummary(workspace, hash, 'working')
      .then((r) => {
        if (live && r.ok) setSince({ hash, files: r.value.files });
      });
    return () => {
      live = false;
    };
  }, [workspace, hash, preview]);

  usePanelFocus(preview !== null, section, close);

  const rows = useMemo(
    () => (preview ? previewRows(preview.changed, since?.hash === hash ? since.files : null) : []),
    [preview, since, hash],
  );
  if (!preview) return null;
  const n = preview.changed.length;
  return (
    <section className="preview" aria-label="Restore preview" ref={section} tabIndex={-1}>
      <h2>
        {n === 0
          ? `Restore code to ${shortHash(preview.target.hash)} would change nothing: the files already match.`
          : `Restore code to ${shortHash(preview.target.hash)} would change ${n} ${n === 1 ? 'file' : 'files'}:`}
      </h2>
      {n > 0 && (
        <ul aria-label="Files a restore would change" className="preview-files">
          {rows.map((r) => (
            <li key={r.path}>
              <span className={`preview-status status-${r.status}`}>{r.status}</span>{' '}
              <span className="path">{r.from ? `${r.from} → ${r.path}` : r.path}</span>{' '}
              {r.insertions !== null && (
                <>
                  <span className="ins">+{r.insertions}</span> <span className="del">−{r.deletions}</span>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      <button type="button" onClick={close}>
        Close preview
      </button>
    </section>
  );
}

function close(): void {
  closePreview();
  document.getElementById(PREVIEW_BUTTON_ID)?.focus();
}

import type { FileChange } from '../../../shared/model';
import { restore, selectFile, useStore } from '../store';

const STATUS_MARK: Record<FileChange['status'], string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
  'type-changed': 'T',
};

export function ChangedFiles() {
  const summary = useStore((s) => s.summary);
  const selectedPath = useStore((s) => s.selectedPath);
  const busy = useStore((s) => s.busy);
  const files = summary?.files ?? [];
  return (
    <div className="files-pane">
      <h2>
        Changed files <span className="count">{summary ? files.length : ''}</span>
      </h2>
      <ul aria-label="Changed files" className="files">
        {files.map((f) => (
          <li
            key={f.path}
            className={f.path === selectedPath ? 'selected' : ''}
            aria-current={f.path === selectedPath ? 'true' : undefined}
          >
            <button
              type="button"
              className="file-pick"
              onClick={() => void selectFile(f.path)}
              title={f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}
            >
              <span className={`status status-${f.status}`} title={f.status}>
                {STATUS_MARK[f.status]}
              </span>
              <span className="path">
                {f.oldPath ? `${f.oldPath} → ` : ''}
                {f.path}
              </span>
              <span className="status-word">{f.status}</span>
              {f.binary ? (
                <span className="binary">binary</span>
              ) : (
                <>
                  <span className="ins">+{f.insertions}</span>
                  <span className="del">−{f.deletions}</span>
                </>
              )}
            </button>
            <button
              type="button"
              className="restore-file"
              onClick={() => void restore('code', f.oldPath ? [f.oldPath, f.path] : [f.path])}
              disabled={busy}
              title={`Restore ${f.path} to this checkpoint`}
            >
              Restore file
            </button>
          </li>
        ))}
      </ul>
      {summary && files.length === 0 && <p className="empty-note">No files changed.</p>}
    </div>
  );
}

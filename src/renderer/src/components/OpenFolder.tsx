import { useState } from 'react';
import { openFolder, pickFolder, useStore } from '../store';

/** Shown when the window has no workspace: a dialog (Electron), a path field, and the recent folders. */
export function OpenFolder() {
  const host = useStore((s) => s.host);
  const recent = useStore((s) => s.recent);
  const [path, setPath] = useState('');
  return (
    <main className="open-folder">
      <h1>Retrace</h1>
      <p>Open a project folder to see its agent sessions, scrub through the checkpoints and restore any of them.</p>
      {host === 'electron' && (
        <p>
          <button type="button" className="primary" onClick={() => void pickFolder()}>
            Open folder…
          </button>{' '}
          or drop a folder onto this window.
        </p>
      )}
      <form
        className="path-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (path.trim()) void openFolder(path.trim());
        }}
      >
        <label>
          Folder path
          <input
            type="text"
            value={path}
            onChange={(e) => setPath(e.target.value)}
            placeholder="/path/to/project"
            spellCheck={false}
            autoFocus
          />
        </label>
        <button type="submit" disabled={!path.trim()}>
          Open
        </button>
      </form>
      {recent.length > 0 && (
        <section>
          <h2>Recent folders</h2>
          <ul aria-label="Recent folders" className="recent">
            {recent.map((p) => (
              <li key={p}>
                <button type="button" onClick={() => void openFolder(p)}>
                  {p}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}

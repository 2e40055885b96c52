import { useEffect, useState } from 'react';
import type { MovedHistory } from '../../../shared/model';
import { api } from '../bridge';
import { refreshStatus, useStore } from '../store';
import { plural } from '../store/describe';

/**
 * In a folder with no sessions: the histories of folders that are gone (same name first), each with a button
 * that brings it here, as `retrace move` does — a project moved or renamed opens with its history out of reach,
 * since the history is kept under the old path's name. Nothing shows when no such history exists.
 */
export function MovedHistories() {
  const workspace = useStore((s) => s.workspace?.id ?? null);
  const [list, setList] = useState<MovedHistory[]>([]);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!workspace) return;
    let live = true;
    void api.movedHistories({ workspace }).then((r) => {
      if (live && r.ok) setList(r.value);
    });
    return () => {
      live = false;
    };
  }, [workspace]);
  if (!workspace || list.length === 0) return null;

  const bring = async (from: string) => {
    setBusy(true);
    try {
      const r = await api.moveHistory({ workspace, from });
      if (!r.ok) {
        useStore.setState({ error: r.error });
        return;
      }
      setList([]);
      // The service says its sessions changed, which opens the newest; the storage figures follow here.
      void refreshStatus();
    } finally {
      setBusy(false);
    }
  };
  return (
    <div role="group" aria-label="Histories of moved folders" className="moved-histories">
      <p>Was this folder moved or renamed? Its history is kept under the old path: bring it here.</p>
      {list.map((h) => (
        <button key={h.root} type="button" disabled={busy} onClick={() => void bring(h.root)}>
          Bring the history of {h.root} ({plural(h.sessions, 'session')})
        </button>
      ))}
    </div>
  );
}

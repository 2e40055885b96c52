import { useEffect, useRef } from 'react';
import { api } from '../bridge';
import { useStore } from '../store';
import { folderOpened, handleSessionsEvent, useSessions } from '../store/sessions';
import { LazyFoundSessionsNotice } from './lazyViews';
import { LazySlot } from './LazySlot';

/**
 * When a folder opens: the agents' sessions recorded there that are not in Retrace yet (or went on since), each
 * with an Import button, plus "Import all" and "Always import" (the folder then imports on opening, without
 * asking). Not modal: the timeline stays usable while it shows and while an import runs in the main process.
 */
export function FoundSessions() {
  const workspace = useStore((s) => s.workspace);
  const open = useSessions((s) => s.foundOpen);
  const importing = useSessions((s) => s.importing);

  useEffect(() => api.onEvent(handleSessionsEvent), []);
  // Once the folder's first view is in (store/state.ts, firstViewShown): asked once per folder opened.
  const firstViewShown = useStore((s) => s.firstViewShown);
  const askedFor = useRef<string | null>(null);
  useEffect(() => {
    if (!workspace || !firstViewShown || askedFor.current === workspace.id) return;
    askedFor.current = workspace.id;
    void folderOpened(workspace);
    // A new folder (by id), not a new object for the same one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [workspace?.id, firstViewShown]);

  if (!open && !importing) return null;
  return (
    <LazySlot fallback={null}>
      <LazyFoundSessionsNotice />
    </LazySlot>
  );
}

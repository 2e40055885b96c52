import { useEffect } from 'react';
import { api } from '../bridge';
import { installCheckpointKeys } from '../keys';
import { installSearchKeys } from '../searchKeys';
import { handleEvent, refreshWorking, useStore } from '../store';
import { useRevert } from '../store/revert';
import { useStorage } from '../store/storage';
import { Banner } from './Banner';
import { ChangedFiles } from './ChangedFiles';
import { CheckpointAnnouncer } from './CheckpointAnnouncer';
import { CompareMode } from './CompareMode';
import { ConnectionStatus } from './ConnectionStatus';
import { DiffView } from './DiffView';
import { ErrorAlert } from './ErrorAlert';
import { RecordChangesAlert } from './RecordChanges';
import { FoundSessions } from './FoundSessions';
import { Header } from './Header';
import { MessagePane } from './MessagePane';
import { OpenFolder } from './OpenFolder';
import { RestoreProgress } from './RestoreProgress';
import { Scrubber } from './Scrubber';
import { LazyRestorePreview, LazyRestoresPanel, LazyRevertPreview, LazyStoragePanel } from './lazyViews';
import { LazySlot } from './LazySlot';
import { Timeline } from './Timeline';

export function App() {
  const phase = useStore((s) => s.phase);
  const revertOpen = useRevert((s) => s.preview !== null);
  const storageOpen = useStorage((s) => s.open);
  const previewOpen = useStore((s) => s.preview !== null);
  const restoresOpen = useStore((s) => s.restoresOpen);

  useEffect(() => {
    const unsubscribe = api.onEvent(handleEvent);
    const uninstall = installCheckpointKeys();
    const uninstallSearchKeys = installSearchKeys();
    // Back from the editor where the files were changed: "Since then" must show them as they are now.
    window.addEventListener('focus', refreshWorking);
    return () => {
      unsubscribe();
      uninstall();
      uninstallSearchKeys();
      window.removeEventListener('focus', refreshWorking);
    };
  }, []);

  if (phase === 'loading') return <div className="loading">Loading…</div>;
  if (phase === 'open-folder')
    return (
      <>
        <ConnectionStatus />
        <ErrorAlert />
        <OpenFolder />
      </>
    );
  return (
    <div className="app">
      <Header />
      <ConnectionStatus />
      <ErrorAlert />
      <RecordChangesAlert />
      <RestoreProgress />
      <Banner />
      <FoundSessions />
      {previewOpen && (
        <LazySlot fallback={null}>
          <LazyRestorePreview />
        </LazySlot>
      )}
      {revertOpen && (
        <LazySlot fallback={null}>
          <LazyRevertPreview />
        </LazySlot>
      )}
      {restoresOpen && (
        <LazySlot fallback={null}>
          <LazyRestoresPanel />
        </LazySlot>
      )}
      {storageOpen && (
        <LazySlot fallback={null}>
          <LazyStoragePanel />
        </LazySlot>
      )}
      <Scrubber />
      <CheckpointAnnouncer />
      <main className="panes">
        <div className="reading-column">
          <Timeline />
          <MessagePane />
        </div>
        <section className="review" aria-label="Review">
          <div className="review-top">
            <CompareMode />
            <ChangedFiles />
          </div>
          <DiffView />
        </section>
      </main>
    </div>
  );
}

import { dismissBanner, undoRestore, useStore } from '../store';

/** What the last restore (or undo) changed, with the way back. */
export function Banner() {
  const banner = useStore((s) => s.banner);
  const busy = useStore((s) => s.busy);
  if (!banner) return null;
  return (
    <div role="status" className="banner">
      {
        <>
          <span className="banner-text">{banner.text}</span>
          {banner.undo && (
            <button type="button" onClick={() => void undoRestore()} disabled={busy}>
              {banner.undo === 'undo' ? 'Undo restore' : 'Redo restore'}
            </button>
          )}
          <button type="button" className="quiet" aria-label="Dismiss message" onClick={dismissBanner}>
            Dismiss
          </button>
        </>
      }
    </div>
  );
}

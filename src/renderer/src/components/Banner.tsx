import { useState } from 'react';
import { dismissBanner, undoRestore, useStore } from '../store';

/** What the last restore (or undo) changed, with the way back. */
export function Banner() {
  const banner = useStore((s) => s.banner);
  const busy = useStore((s) => s.busy);
  if (!banner) return null;
  return (
    <div role="status" className="banner">
      <span className="banner-text">
        {banner.text}
        {banner.resume && <ResumeCommand command={banner.resume} />}
        {banner.note && <span className="banner-note"> {banner.note}</span>}
      </span>
      {banner.undo && (
        // Bound to the banner's own restore id: a newer restore from another window is never undone from here.
        <button type="button" onClick={() => void undoRestore(banner.rid)} disabled={busy}>
          {banner.undo === 'undo' ? 'Undo restore' : 'Redo restore'}
        </button>
      )}
      <button type="button" className="quiet" aria-label="Dismiss message" onClick={dismissBanner}>
        Dismiss
      </button>
    </div>
  );
}

/** The forked Claude Code transcript's resume command, selectable and copyable. */
function ResumeCommand({ command }: { command: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="resume">
      {' '}
      Continue in Claude Code: <code className="resume-command">{command}</code>{' '}
      <button
        type="button"
        className="quiet"
        onClick={() =>
          void navigator.clipboard.writeText(command).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy command'}
      </button>
    </span>
  );
}

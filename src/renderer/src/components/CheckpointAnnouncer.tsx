import { excerpt } from '../format';
import { useStore } from '../store';
import { shortHash } from '../store/describe';

/** Screen readers hear which checkpoint is selected whenever it changes (a polite live region). */
export function CheckpointAnnouncer() {
  const text = useStore((s) => {
    const cp = s.checkpoints[s.selected];
    if (!cp) return '';
    const m = s.messages[cp.index];
    const what = m ? `: ${excerpt(m.text, 80)}` : '';
    return `Checkpoint ${s.selected + 1} of ${s.checkpoints.length}, ${shortHash(cp.hash)}${what}`;
  });
  return (
    <div className="sr-only" aria-live="polite" aria-atomic="true" data-testid="checkpoint-announcer">
      {text}
    </div>
  );
}

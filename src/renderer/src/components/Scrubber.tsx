import { select, useStore } from '../store';
import { shortHash } from '../store/describe';

/** One stop per checkpoint of the listed conversation. */
export function Scrubber() {
  const checkpoints = useStore((s) => s.checkpoints);
  const selected = useStore((s) => s.selected);
  const n = checkpoints.length;
  const current = checkpoints[selected];
  return (
    <div className="scrubber">
      <input
        type="range"
        aria-label="Checkpoints"
        min={0}
        max={Math.max(0, n - 1)}
        step={1}
        value={Math.max(0, selected)}
        disabled={n === 0}
        aria-valuetext={current ? `Checkpoint ${selected + 1} of ${n}, ${shortHash(current.hash)}` : 'No checkpoints'}
        onChange={(e) => select(Number(e.target.value))}
      />
      <span className="scrubber-label">{n === 0 ? 'No checkpoints' : `${selected + 1} / ${n}`}</span>
      <span className="hint">← → or j k · p / P next / previous prompt · / search</span>
    </div>
  );
}

import { setCompare, setCompareFrom, useStore, type CompareMode as Mode } from '../store';
import { shortHash } from '../store/describe';

const MODES: { mode: Mode; label: string }[] = [
  { mode: 'step', label: 'This step' },
  { mode: 'since', label: 'Since then' },
  { mode: 'pair', label: 'Two checkpoints' },
];

export function CompareMode() {
  const compare = useStore((s) => s.compare);
  return (
    <div className="compare-bar">
      <div role="radiogroup" aria-label="Compare" className="compare">
        {MODES.map(({ mode, label }) => (
          <label key={mode} className={compare === mode ? 'on' : ''}>
            <input
              type="radio"
              name="compare"
              value={mode}
              checked={compare === mode}
              onChange={() => setCompare(mode)}
            />
            {label}
          </label>
        ))}
      </div>
      {compare === 'pair' && <CompareFrom />}
    </div>
  );
}

/** The other end of a two-checkpoint comparison (the selected checkpoint is the newer end). */
function CompareFrom() {
  const checkpoints = useStore((s) => s.checkpoints);
  const messages = useStore((s) => s.messages);
  const compareFrom = useStore((s) => s.compareFrom);
  return (
    <label className="compare-from">
      <span>from</span>
      <select aria-label="Compare from" value={compareFrom} onChange={(e) => setCompareFrom(Number(e.target.value))}>
        {checkpoints.map((c, i) => (
          <option key={c.hash} value={i}>
            {i + 1}. {shortHash(c.hash)} {messages[c.index]?.text.slice(0, 60) ?? ''}
          </option>
        ))}
      </select>
      <span>to the selected checkpoint</span>
    </label>
  );
}

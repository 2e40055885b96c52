import { setCompare, useStore, type CompareMode as Mode } from '../store';

const MODES: { mode: Mode; label: string }[] = [
  { mode: 'step', label: 'This step' },
  { mode: 'since', label: 'Since then' },
];

export function CompareMode() {
  const compare = useStore((s) => s.compare);
  return (
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
  );
}

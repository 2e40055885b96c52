import { useStore } from '../store';
import { plural } from '../store/describe';

/** A restore that takes a while (thousands of files) says it is running; the engine reports no steps. */
export function RestoreProgress() {
  const restoring = useStore((s) => s.restoring);
  if (!restoring) return null;
  const text = restoring.files === null ? restoring.text : `${restoring.text} ${plural(restoring.files, 'file')}`;
  return (
    <div role="progressbar" aria-label="Restoring" aria-valuetext={text} className="restoring">
      {text}
    </div>
  );
}

import { useStore } from '../store';
import { openRevertPreview, useRevert } from '../store/revert';

/** Beside the restore buttons: take back the selected checkpoint's step, after a preview. */
export function RevertStepButton() {
  const canAct = useStore((s) => s.selected > 0 && !s.busy);
  const busy = useRevert((s) => s.busy);
  return (
    <button type="button" onClick={() => void openRevertPreview()} disabled={!canAct || busy}>
      Revert this step
    </button>
  );
}

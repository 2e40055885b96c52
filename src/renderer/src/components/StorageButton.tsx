import { formatBytes } from '../format';
import { useStore } from '../store';
import { toggleStorage, useStorage } from '../store/storage';

export const STORAGE_BUTTON_ID = 'storage-button';

/** The header's storage size, as the button that opens the Storage panel. */
export function StorageButton() {
  const status = useStore((s) => s.status);
  const open = useStorage((s) => s.open);
  if (!status) return <span className="storage" />;
  return (
    <button
      type="button"
      id={STORAGE_BUTTON_ID}
      className="storage quiet"
      title="History kept for this folder: open to see it per session"
      aria-expanded={open}
      aria-controls="storage-panel"
      onClick={toggleStorage}
    >
      Storage {formatBytes(status.storageBytes)}
    </button>
  );
}

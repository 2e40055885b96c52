/**
 * Drop a folder onto the desktop window to open it. The page cannot see a dropped file's path; the Electron
 * preload can (webUtils.getPathForFile) and exposes it as `pathForFile`. Under `retrace serve` there is no
 * such bridge and no drop target.
 */

export interface FolderDropHandlers {
  /** The dropped item's path on disk ('' when it has none). */
  pathForFile(file: File): string;
  /** Whether this window already shows a folder. */
  showsFolder(): boolean;
  /** This window shows no folder yet: show the dropped one here. */
  openHere(path: string): Promise<void>;
  /** This window shows a folder: have the main process open (or focus) a window for the dropped one. */
  openInAnotherWindow(path: string): Promise<void>;
}

const carriesFiles = (e: DragEvent) => e.dataTransfer?.types.includes('Files') ?? false;

export function installFolderDrop(target: EventTarget, handlers: FolderDropHandlers): () => void {
  const onDragOver = (e: Event) => {
    const drag = e as DragEvent;
    if (!carriesFiles(drag)) return;
    // Accepting the drag is what makes the drop event fire at all.
    drag.preventDefault();
    if (drag.dataTransfer) drag.dataTransfer.dropEffect = 'copy';
  };
  const onDrop = (e: Event) => {
    const drop = e as DragEvent;
    const file = drop.dataTransfer?.files[0];
    if (!file) return;
    drop.preventDefault();
    const path = handlers.pathForFile(file);
    if (!path) return;
    void (handlers.showsFolder() ? handlers.openInAnotherWindow(path) : handlers.openHere(path));
  };
  target.addEventListener('dragover', onDragOver);
  target.addEventListener('drop', onDrop);
  return () => {
    target.removeEventListener('dragover', onDragOver);
    target.removeEventListener('drop', onDrop);
  };
}

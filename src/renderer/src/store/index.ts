/**
 * The renderer's state (zustand): workspace → sessions → timeline → selected checkpoint → diff → restore.
 * Every call to the main process goes through `api` (bridge.ts); every answer is a Result, and a failed one
 * becomes the alert without changing anything else. One store (state.ts), its actions in one file per slice;
 * this file only re-exports them, so components import everything from '../store'. A feature with its own store
 * (revert.ts and the like) resets it with `onFolderOpened` from './state'.
 */
export { PAGE_SIZE, useStore, type Banner, type CompareMode, type State } from './state';
export { boot, openFolder, pickFolder, refreshStatus, selectSession } from './workspace';
export { ensureRange, reloadTimeline, toggleShowHidden } from './timeline';
export {
  currentSides,
  diffSides,
  ensureBaseline,
  move,
  select,
  selectFile,
  setCompare,
  setCompareFrom,
  toggleInline,
} from './selection';
export {
  closePreview,
  closeRestores,
  dismissBanner,
  loadRestores,
  previewRestore,
  restore,
  toggleRestores,
  undoRestore,
} from './restore';
export { dismissError, handleEvent, refreshWorking, resync, runCommand } from './events';

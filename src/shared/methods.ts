/**
 * The API's method names and IPC channels, apart from the request schemas, so that the sandboxed preload and
 * the renderer's socket client carry no validation library. contract.ts checks that its schemas match.
 */
export const API_METHODS = [
  'init',
  'openWorkspace',
  'pickFolder',
  'recentWorkspaces',
  'listSessions',
  'firstView',
  'timeline',
  'message',
  'diffSummary',
  'fileContents',
  'previewRestore',
  'restore',
  'undo',
  'restores',
  'status',
  'storage',
  'gc',
  'forget',
  'setStorageBudget',
  'revert',
  'applyHunk',
  'fileImages',
  'openInEditor',
  'discover',
  'importFound',
  'folderSettings',
  'setFolderSettings',
  'blame',
  'search',
  'label',
  'movedHistories',
  'moveHistory',
] as const;

export type ApiMethod = (typeof API_METHODS)[number];

/** IPC channel names, one per method (never a generic channel). */
export const ipcChannel = (method: ApiMethod): string => `retrace:${method}`;
export const EVENT_CHANNEL = 'retrace:event';

/**
 * The native menu. Its shortcuts come from the platform's keyboard map (keymap.ts): checkpoint navigation
 * (←/→, j/k) is handled by the renderer itself, so those items never take the keys from text fields; the
 * rest are real accelerators that send a command to the focused window.
 */
import type { BrowserWindow, MenuItemConstructorOptions } from 'electron';
import type { AppCommand } from '../../shared/model';
import { keymapFor, type KeyedAction } from './keymap';

export interface MenuActions {
  openFolder(): void;
  openRecent(path: string): void;
  send(command: AppCommand): void;
}

export function menuTemplate(opts: {
  platform: string;
  appName: string;
  recent: readonly string[];
  actions: MenuActions;
  focused: () => BrowserWindow | null;
  /** Developer items (reload, toggleDevTools): only when the app runs unpackaged, never in a shipped build. */
  devTools: boolean;
}): MenuItemConstructorOptions[] {
  const { actions } = opts;
  const keys = keymapFor(opts.platform);
  const keyed = (action: KeyedAction, item: MenuItemConstructorOptions): MenuItemConstructorOptions => ({
    ...item,
    ...keys[action],
  });
  const cmd = (label: string, command: AppCommand): MenuItemConstructorOptions =>
    keyed(command, { label, click: () => actions.send(command) });
  const mac = opts.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [];
  if (mac)
    template.push({
      label: opts.appName,
      submenu: [
        { role: 'about' },
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { role: 'quit' },
      ],
    });
  template.push(
    {
      label: '&File',
      submenu: [
        keyed('open-folder', { label: 'Open Folder…', click: () => actions.openFolder() }),
        {
          label: 'Open Recent',
          submenu: opts.recent.length
            ? opts.recent.map((p) => ({ label: p, click: () => actions.openRecent(p) }))
            : [{ label: 'No recent folders', enabled: false }],
        },
        { type: 'separator' },
        { role: 'close' },
        ...(mac ? [] : [{ role: 'quit' } as MenuItemConstructorOptions]),
      ],
    },
    {
      label: '&Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    {
      label: '&Checkpoint',
      submenu: [
        cmd('Previous Checkpoint', 'previous-checkpoint'),
        cmd('Next Checkpoint', 'next-checkpoint'),
        { type: 'separator' },
        cmd('Compare This Step', 'compare-step'),
        cmd('Compare Since Then', 'compare-since'),
        cmd('Compare Two Checkpoints', 'compare-pair'),
        cmd('Toggle Inline Diff', 'toggle-inline'),
        cmd('Show Rewound Messages', 'toggle-rewound'),
        { type: 'separator' },
        cmd('Preview Restore', 'preview-restore'),
        cmd('Restore Code', 'restore-code'),
        cmd('Restore Conversation', 'restore-conversation'),
        cmd('Restore Both', 'restore-both'),
        cmd('Undo Restore', 'undo-restore'),
      ],
    },
    {
      label: '&View',
      submenu: [
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
        ...(opts.devTools
          ? ([
              { type: 'separator' },
              { role: 'reload' },
              { role: 'forceReload' },
              { role: 'toggleDevTools' },
            ] as MenuItemConstructorOptions[])
          : []),
      ],
    },
    { role: 'windowMenu' },
  );
  return template;
}

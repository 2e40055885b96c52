/**
 * The native menu. Checkpoint navigation keys (←/→, j/k) are handled by the renderer itself, so those items
 * show their key without registering it (typing in a text field must keep working); the rest are real
 * accelerators that send a command to the focused window.
 */
import type { BrowserWindow, MenuItemConstructorOptions } from 'electron';
import type { AppCommand } from '../../shared/model';

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
}): MenuItemConstructorOptions[] {
  const { actions } = opts;
  const cmd = (
    label: string,
    command: AppCommand,
    accelerator?: string,
    registerAccelerator = true,
  ): MenuItemConstructorOptions => ({
    label,
    ...(accelerator ? { accelerator, registerAccelerator } : {}),
    click: () => actions.send(command),
  });
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
        { label: 'Open Folder…', accelerator: 'CmdOrCtrl+O', click: () => actions.openFolder() },
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
        cmd('Previous Checkpoint', 'previous-checkpoint', 'Left', false),
        cmd('Next Checkpoint', 'next-checkpoint', 'Right', false),
        { type: 'separator' },
        cmd('Compare This Step', 'compare-step', 'CmdOrCtrl+1'),
        cmd('Compare Since Then', 'compare-since', 'CmdOrCtrl+2'),
        cmd('Compare Two Checkpoints', 'compare-pair', 'CmdOrCtrl+3'),
        cmd('Toggle Inline Diff', 'toggle-inline', 'CmdOrCtrl+Alt+I'),
        cmd('Show Rewound Messages', 'toggle-rewound', 'CmdOrCtrl+Alt+H'),
        { type: 'separator' },
        cmd('Preview Restore', 'preview-restore', 'CmdOrCtrl+Alt+P'),
        cmd('Restore Code', 'restore-code', 'CmdOrCtrl+Alt+C'),
        cmd('Restore Conversation', 'restore-conversation', 'CmdOrCtrl+Alt+V'),
        cmd('Restore Both', 'restore-both', 'CmdOrCtrl+Alt+B'),
        cmd('Undo Restore', 'undo-restore', 'CmdOrCtrl+Alt+Z'),
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
        { role: 'toggleDevTools' },
      ],
    },
    { role: 'windowMenu' },
  );
  return template;
}

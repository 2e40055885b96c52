/**
 * Keys that belong to someone else, per platform: Electron's menu-role defaults, the OS, Monaco's diff editor
 * and the renderer itself. The keymap test checks the app's shortcuts against these. Written down from the
 * sources named on each list (Electron's lib/browser/api/menu-item-roles.ts, Apple's and Microsoft's keyboard
 * shortcut pages, GNOME/KDE/IBus defaults, monaco-editor's own keybinding tables); accelerator spelling as in
 * Electron, compared through canonicalAccelerator.
 */
import type { Platform } from '../../src/main/electron/keymap';

export interface ReservedKey {
  accelerator: string;
  owner: string;
}

/** Every MenuItem role Electron documents (docs/api/menu-item.md, "role"). */
export const ELECTRON_MENU_ROLES = new Set([
  'undo',
  'redo',
  'cut',
  'copy',
  'paste',
  'pasteAndMatchStyle',
  'delete',
  'selectAll',
  'reload',
  'forceReload',
  'toggleDevTools',
  'resetZoom',
  'zoomIn',
  'zoomOut',
  'toggleSpellChecker',
  'togglefullscreen',
  'window',
  'minimize',
  'close',
  'help',
  'about',
  'services',
  'hide',
  'hideOthers',
  'unhide',
  'quit',
  'showSubstitutions',
  'toggleSmartQuotes',
  'toggleSmartDashes',
  'toggleTextReplacement',
  'startSpeaking',
  'stopSpeaking',
  'zoom',
  'front',
  'appMenu',
  'fileMenu',
  'editMenu',
  'viewMenu',
  'shareMenu',
  'recentDocuments',
  'toggleTabBar',
  'selectNextTab',
  'selectPreviousTab',
  'showAllTabs',
  'mergeAllWindows',
  'clearRecentDocuments',
  'moveTabToNewWindow',
  'windowMenu',
]);

const role = (name: string, accelerator: string): ReservedKey => ({ accelerator, owner: `Electron role ${name}` });

/** The default accelerator of each role, as Electron assigns it on that platform. */
function electronRoleDefaults(platform: Platform): ReservedKey[] {
  const mac = platform === 'darwin';
  return [
    role('close', 'CommandOrControl+W'),
    role('copy', 'CommandOrControl+C'),
    role('cut', 'CommandOrControl+X'),
    role('paste', 'CommandOrControl+V'),
    role('selectAll', 'CommandOrControl+A'),
    role('undo', 'CommandOrControl+Z'),
    role('redo', platform === 'win32' ? 'Control+Y' : 'Shift+CommandOrControl+Z'),
    role('pasteAndMatchStyle', mac ? 'Cmd+Option+Shift+V' : 'Shift+CommandOrControl+V'),
    role('minimize', 'CommandOrControl+M'),
    role('reload', 'CmdOrCtrl+R'),
    role('forceReload', 'Shift+CmdOrCtrl+R'),
    role('resetZoom', 'CommandOrControl+0'),
    role('zoomIn', 'CommandOrControl+Plus'),
    role('zoomOut', 'CommandOrControl+-'),
    role('toggleDevTools', mac ? 'Alt+Command+I' : 'Ctrl+Shift+I'),
    role('togglefullscreen', mac ? 'Control+Command+F' : 'F11'),
    ...(platform === 'win32' ? [] : [role('quit', 'CommandOrControl+Q')]),
    ...(mac ? [role('hide', 'Command+H'), role('hideOthers', 'Command+Alt+H')] : []),
  ];
}

const os = (owner: string, ...accelerators: string[]): ReservedKey[] =>
  accelerators.map((accelerator) => ({ accelerator, owner }));

const OS_KEYS: Readonly<Record<Platform, ReservedKey[]>> = {
  darwin: [
    ...os('macOS Spotlight / Finder search', 'Cmd+Space', 'Cmd+Alt+Space'),
    ...os('macOS input source / character viewer', 'Ctrl+Space', 'Ctrl+Alt+Space', 'Ctrl+Cmd+Space'),
    ...os('macOS app and window switching', 'Cmd+Tab', 'Cmd+Shift+Tab', 'Cmd+`'),
    ...os('macOS hide / minimize / quit', 'Cmd+H', 'Cmd+Alt+H', 'Cmd+M', 'Cmd+Alt+M', 'Cmd+Q', 'Cmd+W'),
    ...os('macOS log out / lock screen', 'Cmd+Shift+Q', 'Cmd+Alt+Shift+Q', 'Ctrl+Cmd+Q'),
    ...os('macOS Force Quit', 'Cmd+Alt+Esc'),
    ...os('macOS screenshots', 'Cmd+Shift+3', 'Cmd+Shift+4', 'Cmd+Shift+5', 'Cmd+Shift+6'),
    ...os('macOS Dock', 'Cmd+Alt+D'),
    ...os('macOS full screen', 'Ctrl+Cmd+F'),
    ...os('macOS app Settings / Help search', 'Cmd+,', 'Cmd+Shift+/'),
    ...os('macOS Mission Control / Spaces', 'Ctrl+Up', 'Ctrl+Down', 'Ctrl+Left', 'Ctrl+Right'),
    ...os('macOS dictionary look-up', 'Ctrl+Cmd+D'),
    ...os('macOS accessibility (VoiceOver, Zoom, shortcuts panel)', 'Cmd+F5', 'Cmd+Alt+F5', 'Cmd+Alt+8'),
    ...os(
      'macOS Services on by default (Sticky note, Search With Google, man pages)',
      'Cmd+Shift+Y',
      'Cmd+Shift+L',
      'Cmd+Shift+A',
      'Cmd+Shift+M',
    ),
  ],
  win32: [
    ...os('Windows window management', 'Alt+F4', 'Alt+Tab', 'Alt+Esc', 'Alt+Space', 'Ctrl+F4'),
    ...os('Windows Start / Task Manager / secure attention', 'Ctrl+Esc', 'Ctrl+Shift+Esc', 'Ctrl+Alt+Delete'),
    ...os('Windows menu bar / context menu / help', 'F10', 'Shift+F10', 'F1'),
    ...os('Windows IME toggle (East Asian layouts)', 'Ctrl+Space'),
    // Alt+letter opens the menu whose label has that mnemonic (&File, &Edit, &Checkpoint, &View).
    ...os('Windows menu mnemonics', 'Alt+F', 'Alt+E', 'Alt+C', 'Alt+V'),
  ],
  linux: [
    ...os(
      'Linux desktop: terminal, lock, log out',
      'Ctrl+Alt+T',
      'Ctrl+Alt+L',
      'Ctrl+Alt+Delete',
      'Ctrl+Alt+Backspace',
    ),
    ...os('Linux desktop: workspaces', 'Ctrl+Alt+Left', 'Ctrl+Alt+Right', 'Ctrl+Alt+Up', 'Ctrl+Alt+Down'),
    ...os('Linux virtual terminals', ...Array.from({ length: 12 }, (_, i) => `Ctrl+Alt+F${i + 1}`)),
    ...os('Linux window management', 'Alt+F4', 'Alt+Tab', 'Alt+F2', 'Alt+F7', 'Alt+F8', 'Alt+F10', 'Alt+Space'),
    ...os('IBus Unicode / emoji entry', 'Ctrl+Shift+U', 'Ctrl+Shift+E'),
    ...os('Input source switching', 'Ctrl+Space', 'Super+Space'),
    ...os('GTK menu bar', 'F10'),
    ...os('Linux menu mnemonics', 'Alt+F', 'Alt+E', 'Alt+C', 'Alt+V'),
  ],
};

/** Monaco's default keys that still mean something in a read-only diff editor (find, selection, diff navigation). */
function monacoKeys(platform: Platform): ReservedKey[] {
  const mac = platform === 'darwin';
  return os(
    'Monaco',
    'CmdOrCtrl+F',
    'F3',
    'Shift+F3',
    'CmdOrCtrl+G',
    'CmdOrCtrl+Shift+G',
    mac ? 'Cmd+Alt+F' : 'Ctrl+H',
    'CmdOrCtrl+E',
    'CmdOrCtrl+D',
    'CmdOrCtrl+K',
    'CmdOrCtrl+L',
    'CmdOrCtrl+U',
    'CmdOrCtrl+I',
    'CmdOrCtrl+Shift+A',
    'CmdOrCtrl+Shift+I',
    'CmdOrCtrl+Shift+K',
    'CmdOrCtrl+Shift+L',
    'CmdOrCtrl+Shift+O',
    'CmdOrCtrl+Shift+R',
    'CmdOrCtrl+Shift+Z',
    'CmdOrCtrl+Shift+1',
    'CmdOrCtrl+Alt+C',
    'CmdOrCtrl+Alt+L',
    'CmdOrCtrl+Alt+P',
    'CmdOrCtrl+Alt+R',
    'CmdOrCtrl+Alt+W',
    'Alt+C',
    'Alt+L',
    'Alt+P',
    'Alt+R',
    'Alt+W',
    'F1',
    'Alt+F1',
    'F7',
    'Shift+F7',
    'F8',
    'Alt+F8',
    'F12',
    'CmdOrCtrl+/',
    mac ? 'Ctrl+Shift+M' : 'Ctrl+M',
  );
}

/**
 * The page's own keys, outside text fields: checkpoint navigation (src/renderer/src/keys.ts), and search's
 * next / previous prompt and "go to the search box" (src/renderer/src/searchKeys.ts).
 */
export const RENDERER_KEYS = ['Left', 'Right', 'J', 'K', 'P', 'Shift+P', '/'];

export function reservedKeys(platform: Platform): ReservedKey[] {
  return [
    ...electronRoleDefaults(platform),
    ...OS_KEYS[platform],
    ...monacoKeys(platform),
    ...os('the renderer (checkpoint keys)', ...RENDERER_KEYS),
  ];
}

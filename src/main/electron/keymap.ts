/**
 * The native menu's keyboard shortcuts, one map per platform, and the canonical form used to compare them.
 *
 * Why per platform:
 * - macOS gives every menu key equivalent to the menu before the page sees the key, and ignores
 *   `registerAccelerator: false` (Electron documents it for Linux and Windows only). A bare ←/→ or j/k item
 *   would take those keys from every text field and from Monaco, so on macOS the checkpoint items carry no
 *   accelerator at all (the renderer handles the keys itself) and name the keys in their sublabel instead.
 * - On Windows Ctrl+Alt is AltGr on many layouts (Polish ć, ż; German @, €): a Ctrl+Alt shortcut fires while
 *   typing. The restore commands therefore use Ctrl+Shift there.
 * - Cmd+Alt+I and Cmd+Alt+H are Electron's toggleDevTools and hideOthers on macOS; Ctrl+Shift+I is
 *   toggleDevTools elsewhere, Ctrl+Shift+V paste-and-match-style and Ctrl+Shift+Z redo (Linux, and Monaco).
 * test/app/keymap.test.ts checks each map against the OS's, Electron's and Monaco's own keys.
 */
import type { AppCommand } from '../../shared/model';

export type Platform = 'darwin' | 'win32' | 'linux';

/** Everything the menu has a key for: the renderer's commands, and opening a folder. */
export type KeyedAction = AppCommand | 'open-folder';

export type KeyBinding =
  /** A real shortcut: the menu item fires on it. */
  | { accelerator: string; registerAccelerator: true }
  /** Shown next to the item only; the renderer handles the key (Linux and Windows honour this). */
  | { accelerator: string; registerAccelerator: false }
  /** No accelerator at all (macOS would register even a display-only one); the item names the keys instead. */
  | { sublabel: string };

export type KeyMap = Readonly<Partial<Record<KeyedAction, KeyBinding>>>;

const key = (accelerator: string): KeyBinding => ({ accelerator, registerAccelerator: true });
const shownOnly = (accelerator: string): KeyBinding => ({ accelerator, registerAccelerator: false });

/** Windows and Linux share one map: Ctrl+Shift for the commands, ←/→ shown but left to the page. */
const CTRL_SHIFT_MAP: KeyMap = {
  'open-folder': key('Ctrl+O'),
  'previous-checkpoint': shownOnly('Left'),
  'next-checkpoint': shownOnly('Right'),
  'compare-step': key('Ctrl+1'),
  'compare-since': key('Ctrl+2'),
  'compare-pair': key('Ctrl+3'),
  'toggle-inline': key('Ctrl+Shift+D'),
  'toggle-rewound': key('Ctrl+Shift+H'),
  'preview-restore': key('Ctrl+Shift+P'),
  'restore-code': key('Ctrl+Shift+C'),
  'restore-conversation': key('Ctrl+Shift+T'),
  'restore-both': key('Ctrl+Shift+B'),
  'undo-restore': key('Ctrl+Shift+Y'),
};

const KEYMAPS: Readonly<Record<Platform, KeyMap>> = {
  darwin: {
    'open-folder': key('Cmd+O'),
    'previous-checkpoint': { sublabel: '← or K' },
    'next-checkpoint': { sublabel: '→ or J' },
    'compare-step': key('Cmd+1'),
    'compare-since': key('Cmd+2'),
    'compare-pair': key('Cmd+3'),
    'toggle-inline': key('Cmd+Shift+D'),
    'toggle-rewound': key('Cmd+Shift+H'),
    'preview-restore': key('Cmd+Shift+P'),
    'restore-code': key('Cmd+Shift+C'),
    'restore-conversation': key('Cmd+Shift+T'),
    'restore-both': key('Cmd+Shift+B'),
    // Cmd+Shift+Y is the system "Make New Sticky Note" service and Cmd+Shift+Z is redo.
    'undo-restore': key('Cmd+Alt+Z'),
  },
  win32: CTRL_SHIFT_MAP,
  linux: CTRL_SHIFT_MAP,
};

/** The map for `process.platform`; any other Unix gets the Linux map. */
export function keymapFor(platform: string): KeyMap {
  return KEYMAPS[platform as Platform] ?? KEYMAPS.linux;
}

const MODIFIER_ORDER = ['Ctrl', 'Alt', 'Shift', 'Cmd', 'Super', 'AltGr'] as const;

const KEY_ALIASES: Readonly<Record<string, string>> = { escape: 'Esc', return: 'Enter', '+': 'Plus' };

/**
 * One spelling per shortcut, as the platform sees it: on macOS "CommandOrControl+Option+i" and "Alt+Cmd+I"
 * are both "Alt+Cmd+I"; elsewhere "CmdOrCtrl+Shift+i" is "Ctrl+Shift+I". Modifiers in a fixed order.
 */
export function canonicalAccelerator(accelerator: string, platform: string): string {
  const mac = platform === 'darwin';
  const parts = accelerator.split(/\+(?!$)/);
  const keyName = parts.pop()!;
  const mods = new Set<string>();
  for (const raw of parts) {
    switch (raw.toLowerCase()) {
      case 'commandorcontrol':
      case 'cmdorctrl':
        mods.add(mac ? 'Cmd' : 'Ctrl');
        break;
      case 'command':
      case 'cmd':
        mods.add('Cmd');
        break;
      case 'control':
      case 'ctrl':
        mods.add('Ctrl');
        break;
      case 'alt':
      case 'option':
        mods.add('Alt');
        break;
      case 'altgr':
        mods.add('AltGr');
        break;
      case 'shift':
        mods.add('Shift');
        break;
      case 'super':
      case 'meta':
        mods.add(mac ? 'Cmd' : 'Super');
        break;
      default:
        throw new Error(`unknown modifier "${raw}" in accelerator "${accelerator}"`);
    }
  }
  const ordered = MODIFIER_ORDER.filter((m) => mods.has(m));
  const alias = KEY_ALIASES[keyName.toLowerCase()];
  const name = alias ?? (keyName.length === 1 ? keyName.toUpperCase() : keyName[0]!.toUpperCase() + keyName.slice(1));
  return [...ordered, name].join('+');
}

/** The modifiers of a canonical accelerator. */
export function modifiersOf(canonical: string): string[] {
  return canonical.split(/\+(?!$)/).slice(0, -1);
}

import { describe, expect, it } from 'vitest';
import {
  canonicalAccelerator,
  keymapFor,
  modifiersOf,
  type KeyBinding,
  type KeyedAction,
  type Platform,
} from '../../src/main/electron/keymap';
import { RENDERER_KEYS, reservedKeys } from './reservedKeys';

const PLATFORMS: Platform[] = ['darwin', 'win32', 'linux'];
const ACTIONS: KeyedAction[] = [
  'open-folder',
  'previous-checkpoint',
  'next-checkpoint',
  'compare-step',
  'compare-since',
  'compare-pair',
  'toggle-inline',
  'toggle-rewound',
  'preview-restore',
  'restore-code',
  'restore-conversation',
  'restore-both',
  'undo-restore',
];

const bindings = (platform: Platform) => Object.entries(keymapFor(platform)) as [KeyedAction, KeyBinding][];
const registered = (platform: Platform) =>
  bindings(platform).flatMap(([action, b]) =>
    'accelerator' in b && b.registerAccelerator
      ? [{ action, canonical: canonicalAccelerator(b.accelerator, platform) }]
      : [],
  );

describe('canonical accelerators', () => {
  it('spells one shortcut one way per platform', () => {
    expect(canonicalAccelerator('CmdOrCtrl+Alt+I', 'darwin')).toBe('Alt+Cmd+I');
    expect(canonicalAccelerator('Alt+Command+i', 'darwin')).toBe('Alt+Cmd+I');
    expect(canonicalAccelerator('CommandOrControl+Shift+i', 'linux')).toBe('Ctrl+Shift+I');
    expect(canonicalAccelerator('Shift+Control+I', 'win32')).toBe('Ctrl+Shift+I');
    expect(canonicalAccelerator('CmdOrCtrl+-', 'linux')).toBe('Ctrl+-');
    expect(canonicalAccelerator('CommandOrControl+Plus', 'darwin')).toBe('Cmd+Plus');
    expect(canonicalAccelerator('Option+Escape', 'darwin')).toBe('Alt+Esc');
    expect(modifiersOf('Ctrl+Shift+I')).toEqual(['Ctrl', 'Shift']);
    expect(() => canonicalAccelerator('Hyper+I', 'linux')).toThrow(/unknown modifier/);
  });

  it('catches the shortcuts this map replaced (Cmd+Alt+I/H on macOS, Ctrl+Alt on Windows)', () => {
    const taken = (acc: string, p: Platform) =>
      reservedKeys(p).some((r) => canonicalAccelerator(r.accelerator, p) === canonicalAccelerator(acc, p));
    expect(taken('CmdOrCtrl+Alt+I', 'darwin')).toBe(true); // toggleDevTools
    expect(taken('CmdOrCtrl+Alt+H', 'darwin')).toBe(true); // hideOthers
    expect(modifiersOf(canonicalAccelerator('CmdOrCtrl+Alt+C', 'win32'))).toEqual(['Ctrl', 'Alt']);
  });
});

describe.each(PLATFORMS)('keyboard map on %s', (platform) => {
  it('has a key for every menu action', () => {
    expect(Object.keys(keymapFor(platform)).sort()).toEqual([...ACTIONS].sort());
  });

  it('takes no key from the OS, from Electron’s role defaults, from Monaco or from the page', () => {
    const reserved = new Map(
      reservedKeys(platform).map((r) => [canonicalAccelerator(r.accelerator, platform), r.owner]),
    );
    const clashes = registered(platform)
      .filter((k) => reserved.has(k.canonical))
      .map((k) => `${k.action}: ${k.canonical} belongs to ${reserved.get(k.canonical)}`);
    expect(clashes).toEqual([]);
  });

  it('uses each shortcut once', () => {
    const keys = registered(platform).map((k) => k.canonical);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('registers no bare key: every real shortcut holds Cmd or Ctrl', () => {
    for (const { action, canonical } of registered(platform)) {
      expect(
        modifiersOf(canonical).some((m) => m === 'Cmd' || m === 'Ctrl'),
        `${action}: ${canonical}`,
      ).toBe(true);
    }
  });

  it('leaves the page’s own keys (←/→) to the page', () => {
    const shown = bindings(platform).filter(([, b]) => 'accelerator' in b && !b.registerAccelerator);
    for (const [, b] of shown)
      expect(RENDERER_KEYS).toContain(canonicalAccelerator((b as { accelerator: string }).accelerator, platform));
  });
});

describe('platform rules', () => {
  it('macOS: no display-only accelerators, since macOS registers every accelerator a menu shows', () => {
    const map = keymapFor('darwin');
    for (const b of Object.values(map)) if ('accelerator' in b) expect(b.registerAccelerator).toBe(true);
    expect(map['previous-checkpoint']).toEqual({ sublabel: '← or K' });
    expect(map['next-checkpoint']).toEqual({ sublabel: '→ or J' });
  });

  it('Windows: no Ctrl+Alt (AltGr types ć, ż, @, € on many layouts) and no AltGr', () => {
    for (const { action, canonical } of registered('win32')) {
      const mods = modifiersOf(canonical);
      expect(mods.includes('Ctrl') && mods.includes('Alt'), `${action}: ${canonical}`).toBe(false);
      expect(mods, action).not.toContain('AltGr');
    }
  });

  it('Windows and Linux show ←/→ on the checkpoint items without registering them', () => {
    for (const platform of ['win32', 'linux'] as const) {
      expect(keymapFor(platform)['previous-checkpoint']).toEqual({ accelerator: 'Left', registerAccelerator: false });
      expect(keymapFor(platform)['next-checkpoint']).toEqual({ accelerator: 'Right', registerAccelerator: false });
    }
  });

  it('any other Unix gets the Linux map', () => {
    expect(keymapFor('freebsd')).toBe(keymapFor('linux'));
  });
});

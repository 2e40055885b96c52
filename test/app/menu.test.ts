import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { canonicalAccelerator } from '../../src/main/electron/keymap';
import { menuTemplate } from '../../src/main/electron/menu';
import type { AppCommand } from '../../src/shared/model';
import { ELECTRON_MENU_ROLES } from './reservedKeys';

function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? items(i.submenu) : [])]);
}

function build(platform: string, devTools = false) {
  const sent: AppCommand[] = [];
  const opened: string[] = [];
  const template = menuTemplate({
    platform,
    appName: 'Retrace',
    recent: ['/work/a', '/work/b'],
    focused: () => null,
    devTools,
    actions: { openFolder: () => opened.push('dialog'), openRecent: (p) => opened.push(p), send: (c) => sent.push(c) },
  });
  const all = items(template);
  const byLabel = (label: string) => all.find((i) => i.label === label)!;
  const click = (label: string) => (byLabel(label).click as () => void)();
  return { all, byLabel, click, sent, opened };
}

describe('native menu', () => {
  it('on Linux and Windows shows ←/→ on the checkpoint items without taking them from text fields', () => {
    for (const platform of ['linux', 'win32']) {
      const { byLabel } = build(platform);
      expect(byLabel('Previous Checkpoint')).toMatchObject({ accelerator: 'Left', registerAccelerator: false });
      expect(byLabel('Next Checkpoint')).toMatchObject({ accelerator: 'Right', registerAccelerator: false });
      expect(byLabel('Restore Code')).toMatchObject({ accelerator: 'Ctrl+Shift+C', registerAccelerator: true });
    }
  });

  it('on macOS gives the checkpoint items no accelerator at all (macOS would register it) and names the keys', () => {
    const { byLabel } = build('darwin');
    expect(byLabel('Previous Checkpoint')).not.toHaveProperty('accelerator');
    expect(byLabel('Previous Checkpoint').sublabel).toBe('← or K');
    expect(byLabel('Next Checkpoint')).not.toHaveProperty('accelerator');
    expect(byLabel('Toggle Inline Diff').accelerator).toBe('Cmd+Shift+D');
  });

  it('sends each action to the window as a command, and opens folders', () => {
    const { click, sent, opened } = build('linux');
    for (const label of [
      'Restore Code',
      'Restore Conversation',
      'Restore Both',
      'Preview Restore',
      'Undo Restore',
      'Compare Two Checkpoints',
    ])
      click(label);
    expect(sent).toEqual([
      'restore-code',
      'restore-conversation',
      'restore-both',
      'preview-restore',
      'undo-restore',
      'compare-pair',
    ]);
    click('Open Folder…');
    click('/work/b');
    expect(opened).toEqual(['dialog', '/work/b']);
  });

  it('ships no developer tools: reload and toggleDevTools only when running unpackaged', () => {
    for (const platform of ['darwin', 'win32', 'linux']) {
      const roles = (devTools: boolean) => build(platform, devTools).all.map((i) => i.role);
      expect(roles(false)).not.toContain('toggleDevTools');
      expect(roles(false)).not.toContain('reload');
      expect(roles(true)).toContain('toggleDevTools');
    }
  });

  it('uses only roles Electron documents', () => {
    for (const platform of ['darwin', 'win32', 'linux']) {
      const roles = build(platform, true).all.flatMap((i) => (i.role ? [i.role] : []));
      expect(roles.filter((r) => !ELECTRON_MENU_ROLES.has(r))).toEqual([]);
    }
  });

  it('every accelerator is used once', () => {
    for (const platform of ['darwin', 'win32', 'linux']) {
      const accels = build(platform, true)
        .all.filter((i) => i.accelerator)
        .map((i) => canonicalAccelerator(String(i.accelerator), platform));
      expect(new Set(accels).size).toBe(accels.length);
    }
  });
});

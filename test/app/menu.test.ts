import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { menuTemplate } from '../../src/main/electron/menu';
import type { AppCommand } from '../../src/shared/model';

function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? items(i.submenu) : [])]);
}

describe('native menu', () => {
  const sent: AppCommand[] = [];
  const opened: string[] = [];
  const template = menuTemplate({
    platform: 'linux',
    appName: 'Retrace',
    recent: ['/work/a', '/work/b'],
    focused: () => null,
    actions: { openFolder: () => opened.push('dialog'), openRecent: (p) => opened.push(p), send: (c) => sent.push(c) },
  });
  const all = items(template);
  const byLabel = (label: string) => all.find((i) => i.label === label)!;
  const click = (label: string) => (byLabel(label).click as () => void)();

  it('shows the checkpoint keys without stealing them from text fields', () => {
    expect(byLabel('Previous Checkpoint')).toMatchObject({ accelerator: 'Left', registerAccelerator: false });
    expect(byLabel('Next Checkpoint')).toMatchObject({ accelerator: 'Right', registerAccelerator: false });
    expect(byLabel('Restore Code')).toMatchObject({ accelerator: 'CmdOrCtrl+Alt+C', registerAccelerator: true });
  });

  it('sends each action to the window as a command, and opens folders', () => {
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

  it('every accelerator is used once', () => {
    const accels = all.filter((i) => i.accelerator).map((i) => String(i.accelerator));
    expect(new Set(accels).size).toBe(accels.length);
  });
});

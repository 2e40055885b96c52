/// <reference lib="dom" />
/**
 * The desktop app itself, where the Electron binary exists (it is not downloaded on machines that set
 * ELECTRON_SKIP_BINARY_DOWNLOAD; the browser specs cover the same renderer through `retrace serve`).
 */
import { _electron as electron, expect, test } from '@playwright/test';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, REPO, tempWorld } from './support/retrace';

const hasElectron = existsSync(join(REPO, 'node_modules/electron/dist'));
const SKIP_REASON = 'Electron binary not installed (ELECTRON_SKIP_BINARY_DOWNLOAD)';
// Say it plainly in the run's output too: the list reporter only shows a skipped test's title.
if (!hasElectron)
  console.log(`electron e2e: skipped — ${SKIP_REASON}; the same renderer is tested through retrace serve`);

test('the Electron window opens the folder from the command line and shows its timeline and diff', async () => {
  test.skip(!hasElectron, SKIP_REASON);
  const world = tempWorld();
  try {
    mkdirSync(join(world.dir, 'src'));
    writeFileSync(join(world.dir, 'src/a.txt'), 'one\n');
    await cli(world, ['message', '--role', 'user', '--text', 'Start']);
    await cli(world, ['checkpoint', '--text', 'First']);
    writeFileSync(join(world.dir, 'src/a.txt'), 'one\ntwo\n');
    await cli(world, ['checkpoint', '--text', 'Second']);

    const app = await electron.launch({
      args: [join(REPO, 'out/main/index.js'), world.dir, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      env: { ...process.env, RETRACE_HOME: world.home },
    });
    try {
      const win = await app.firstWindow();
      // The renderer sees exactly the contract, and no Node.
      expect(
        await win.evaluate(() => Object.keys((window as unknown as { retrace: object }).retrace).sort()),
      ).toContain('restore');
      expect(await win.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
      const timeline = win.getByRole('list', { name: 'Timeline' });
      await expect(timeline.getByRole('listitem')).toHaveCount(3);
      await expect(win.locator('.monaco-diff-editor')).toContainText('two');
      await win.keyboard.press('ArrowLeft');
      await expect(win.getByRole('slider', { name: 'Checkpoints' })).toHaveValue('0');
      // Security settings as the app really applied them.
      const prefs = await app.evaluate(({ BrowserWindow }) => {
        const w = BrowserWindow.getAllWindows()[0]!;
        return (
          w.webContents as unknown as { getLastWebPreferences(): Record<string, unknown> }
        ).getLastWebPreferences();
      });
      expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    } finally {
      await app.close();
    }
  } finally {
    world.cleanup();
  }
});

/// <reference lib="dom" />
/**
 * Review defects of issue 12 — keys, errors, first checkpoints, accessibility — through `retrace serve` on
 * sessions recorded with the real CLI (or the engine, for long ones), found by accessible names (UI.md).
 * The 3,000-file step is timed in review-perf.spec.ts.
 */
import { expect, test, type Page } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cli, serve, tempWorld, tsx, type Served, type TempWorld } from './support/retrace';

function write(world: TempWorld, rel: string, content: string): void {
  mkdirSync(join(world.dir, rel, '..'), { recursive: true });
  writeFileSync(join(world.dir, rel), content);
}

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });
const selectedItem = (page: Page) => timeline(page).locator('[role="listitem"][aria-current="true"]');
const slider = (page: Page) => page.getByRole('slider', { name: 'Checkpoints' });
const changedFiles = (page: Page) => page.getByRole('list', { name: 'Changed files' });
const diffEditor = (page: Page) => page.locator('.monaco-diff-editor');
const announcer = (page: Page) => page.locator('[aria-live="polite"][data-testid="checkpoint-announcer"]');

/** The focused element is the selected timeline row. */
async function expectFocusOnSelectedRow(page: Page): Promise<void> {
  await expect(selectedItem(page).getByRole('button')).toBeFocused();
  // One row looks selected, never two.
  await expect(timeline(page).locator('.row.selected')).toHaveCount(1);
}

/** m1 · c1 (README, a.ts) · c2 (a.ts changed, b.ts added) · c3 (README deleted, c.ts added) */
async function smallSession(world: TempWorld): Promise<string[]> {
  const hashes: string[] = [];
  await cli(world, ['message', '--role', 'user', '--text', 'Make a small project']);
  write(world, 'README.md', '# Small\n\nA readme.\n');
  write(world, 'src/a.ts', 'export const a = 1;\n');
  hashes.push((await cli<{ hash: string }>(world, ['checkpoint', '--text', 'First files'])).hash);
  write(world, 'src/a.ts', 'export const a = 2;\n');
  write(world, 'src/b.ts', 'export const b = 1;\nexport const bb = 2;\n');
  hashes.push((await cli<{ hash: string }>(world, ['checkpoint', '--text', 'Change a, add b'])).hash);
  rmSync(join(world.dir, 'README.md'));
  write(world, 'src/c.ts', 'export const c = 3;\n');
  hashes.push((await cli<{ hash: string }>(world, ['checkpoint', '--text', 'Drop the README, add c'])).hash);
  return hashes;
}

/** A fresh folder with smallSession recorded, served; both removed afterwards whatever happens. */
async function withSmallSession(fn: (world: TempWorld, served: Served) => Promise<void>): Promise<void> {
  const world = tempWorld();
  try {
    await smallSession(world);
    const served = await serve(world);
    try {
      await fn(world, served);
    } finally {
      await served.stop();
    }
  } finally {
    world.cleanup();
  }
}

test.describe('keys and focus', () => {
  let world: TempWorld;
  test.beforeAll(async () => {
    world = tempWorld();
    // 1,300 messages with a checkpoint every 20th: 65 checkpoints, far more rows than fit on screen.
    await tsx(world, 'e2e/support/bulk-session.ts', [world.dir, '1300', '20']);
  });
  test.afterAll(() => world?.cleanup());

  test('←/→ and j/k move between checkpoints wherever focus is; focus follows; the change is announced', async ({
    page,
  }) => {
    const served = await serve(world);
    try {
      await page.setViewportSize({ width: 1400, height: 860 });
      await page.goto(served.url);
      await expect(slider(page)).toHaveValue('65');

      // After clicking a compare mode, → and ← still move checkpoints (the mode stays as clicked).
      await page.getByRole('radio', { name: 'Since then' }).click();
      await page.keyboard.press('ArrowLeft');
      await expect(slider(page)).toHaveValue('64');
      await expect(page.getByRole('radio', { name: 'Since then' })).toBeChecked();
      await expectFocusOnSelectedRow(page);
      await page.getByRole('radio', { name: 'This step' }).click();
      await page.keyboard.press('k');
      await expect(slider(page)).toHaveValue('63');
      await page.getByRole('radio', { name: 'This step' }).focus();
      await page.keyboard.press('ArrowRight');
      await expect(slider(page)).toHaveValue('64');
      await expect(page.getByRole('radio', { name: 'This step' })).toBeChecked();
      await expectFocusOnSelectedRow(page);
      await expect(announcer(page)).toContainText('Checkpoint 65 of 66');

      // On the Sessions button, j/k move checkpoints and leave the session alone.
      const sessions = page.getByRole('button', { name: 'Sessions', exact: true });
      const session = await page.locator('#current-session').textContent();
      await sessions.focus();
      await page.keyboard.press('j');
      await expect(slider(page)).toHaveValue('65');
      await expect(page.locator('#current-session')).toHaveText(session ?? '');
      await expect(page.getByRole('list', { name: 'Session list' })).toHaveCount(0);
      await expectFocusOnSelectedRow(page);

      // A click on one row, then keys: the focus moves with the selection (never two rows lit).
      await selectedItem(page).getByRole('button').click();
      await page.keyboard.press('k');
      await page.keyboard.press('k');
      await expect(slider(page)).toHaveValue('63');
      await expectFocusOnSelectedRow(page);

      // Sixty presses of k: focus stays on the selected row as the list scrolls under it.
      for (let i = 0; i < 60; i++) await page.keyboard.press('k');
      await expect(slider(page)).toHaveValue('3');
      await expectFocusOnSelectedRow(page);
      expect(await page.evaluate(() => document.activeElement === document.body)).toBe(false);
      await expect(announcer(page)).toContainText('Checkpoint 4 of 66');
      await expect(selectedItem(page)).toContainText('Message 60: checkpoint');

      // Inside the diff editor the arrows are the editor's, not the timeline's.
      await expect(diffEditor(page)).toBeVisible();
      await page.getByRole('textbox', { name: /^After: counter\.txt/ }).focus();
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('k');
      await expect(slider(page)).toHaveValue('3');
    } finally {
      await served.stop();
    }
  });
});

test.describe('a small session', () => {
  let world: TempWorld;
  let hashes: string[];
  test.beforeAll(async () => {
    world = tempWorld();
    // The project existed before the session: its first checkpoint is the baseline, not "created by the prompt".
    for (let i = 0; i < 5; i++) write(world, `lib/old-${i}.ts`, `export const old${i} = ${i};\n`);
    hashes = await smallSession(world);
  });
  test.afterAll(() => world?.cleanup());

  test('named controls: Restore file PATH, read-only diff editors named Before/After, no 403 favicon', async ({
    page,
  }) => {
    const served = await serve(world);
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    try {
      await page.setViewportSize({ width: 1400, height: 860 });
      await page.goto(served.url);
      await expect(selectedItem(page)).toContainText(hashes[2]!.slice(0, 7));
      const files = changedFiles(page);
      await expect(files.getByRole('listitem')).toHaveCount(2);
      await expect(files.getByRole('button', { name: 'Restore file README.md', exact: true })).toBeVisible();
      await expect(files.getByRole('button', { name: 'Restore file src/c.ts', exact: true })).toBeVisible();

      // An added file has no phantom "1 −" before side, and a deleted one no phantom "1 +" after side.
      await files.getByRole('button', { name: /^src\/c\.ts/ }).click();
      await expect(diffEditor(page)).toContainText('export const c = 3;');
      await expect(page.locator('.monaco-diff-editor .editor.original')).toBeHidden();
      await expect(page.locator('.monaco-diff-editor .editor.modified')).toBeVisible();
      await files.getByRole('button', { name: /^README\.md/ }).click();
      await expect(diffEditor(page)).toContainText('A readme.');
      await expect(page.locator('.monaco-diff-editor .editor.modified')).toBeHidden();
      await expect(page.locator('.monaco-diff-editor .editor.original')).toBeVisible();

      // Both editors of a modified file are named and read-only.
      await page.keyboard.press('k');
      await expect(selectedItem(page)).toContainText(hashes[1]!.slice(0, 7));
      await files.getByRole('button', { name: /^src\/a\.ts/ }).click();
      const after = page.getByRole('textbox', { name: /^After: src\/a\.ts/ });
      const before = page.getByRole('textbox', { name: /^Before: src\/a\.ts/ });
      await expect(after).toHaveCount(1);
      await expect(before).toHaveCount(1);
      await expect(after).toHaveAttribute('aria-readonly', 'true');
      await expect(before).toHaveAttribute('aria-readonly', 'true');
      await expect(after).not.toBeEditable();

      expect(failed).toEqual([]);
    } finally {
      await served.stop();
    }
  });

  test("a session's first checkpoint reads as its baseline", async ({ page }) => {
    const served = await serve(world);
    try {
      await page.setViewportSize({ width: 1400, height: 860 });
      await page.goto(served.url);
      const first = timeline(page)
        .getByRole('listitem')
        .filter({ hasText: hashes[0]!.slice(0, 7) });
      // 5 files from before the session, plus README.md and src/a.ts.
      await expect(first).toContainText('Baseline: 7 files');
      await expect(first).not.toContainText('+');
      await page.keyboard.press('k');
      await page.keyboard.press('k');
      await expect(selectedItem(page)).toContainText(hashes[0]!.slice(0, 7));
      await expect(page.getByText('Baseline: 7 files — the session')).toBeVisible();
      await expect(changedFiles(page).getByRole('listitem')).toHaveCount(7);
      // The next checkpoint still counts its own changes.
      const second = timeline(page)
        .getByRole('listitem')
        .filter({ hasText: hashes[1]!.slice(0, 7) });
      await expect(second).toContainText('2 files');
    } finally {
      await served.stop();
    }
  });

  test('a second session that starts with no change is a baseline too, never "0 files"', async ({ page }) => {
    await cli(world, ['message', '--session', 'second-session', '--role', 'user', '--text', 'Second session']);
    const { hash } = await cli<{ hash: string }>(world, [
      'checkpoint',
      '--session',
      'second-session',
      '--text',
      'Nothing yet',
    ]);
    const served = await serve(world);
    try {
      await page.setViewportSize({ width: 1400, height: 860 });
      await page.goto(served.url);
      await expect(page.locator('#current-session')).toContainText('Second session');
      await expect(selectedItem(page)).toContainText(hash.slice(0, 7));
      await expect(selectedItem(page)).toContainText(/Baseline: \d+ files/);
      await expect(selectedItem(page)).not.toContainText('0 files');
    } finally {
      await served.stop();
    }
  });
});

test.describe('errors and restores', () => {
  test('"Restore file" on a file the step deleted brings it back', async ({ page }) => {
    await withSmallSession(async (world, served) => {
      await page.setViewportSize({ width: 1400, height: 860 });
      await page.goto(served.url);
      await expect(changedFiles(page).getByRole('listitem')).toHaveCount(2);
      await changedFiles(page).getByRole('button', { name: 'Restore file README.md', exact: true }).click();
      await expect(page.getByText('Restored README.md')).toBeVisible();
      await expect(page.getByText('1 file changed')).toBeVisible();
      expect(readFileSync(join(world.dir, 'README.md'), 'utf8')).toBe('# Small\n\nA readme.\n');
      expect(existsSync(join(world.dir, 'src/c.ts'))).toBe(true);
    });
  });

  test('a deleted workspace folder is an alert with its code, and the diff is never stuck on Loading', async ({
    page,
  }) => {
    await withSmallSession(async (world, served) => {
      await page.setViewportSize({ width: 1400, height: 860 });
      await page.goto(served.url);
      await expect(changedFiles(page).getByRole('listitem')).toHaveCount(2);
      rmSync(world.dir, { recursive: true, force: true });
      await page.getByRole('radio', { name: 'Since then' }).click();
      const alert = page.getByRole('alert');
      await expect(alert).toBeVisible();
      await expect(alert.locator('code')).toHaveText(/^E_[A-Z_]+$/);
      await expect(page.getByText(/^Could not load the diff: .+\(E_[A-Z_]+\)$/)).toBeVisible();
      await expect(page.getByText('Loading the diff…')).toHaveCount(0);
    });
  });

  test('after `retrace serve` restarts on the same port, the tab says so and reconnects', async ({ page }) => {
    const world = tempWorld();
    try {
      const hashes = await smallSession(world);
      const port = await freePort();
      let served = await serve(world, { port });
      try {
        await page.setViewportSize({ width: 1400, height: 860 });
        await page.goto(served.url);
        await expect(selectedItem(page)).toContainText(hashes[2]!.slice(0, 7));
        await served.stop();
        const status = page.getByRole('status', { name: 'Connection' });
        await expect(status).toContainText(/Reconnecting…|Disconnected/);
        served = await serve(world, { port });
        await expect(status).toHaveCount(0, { timeout: 20_000 });
        // Working again: a key loads another checkpoint's diff from the new server.
        await page.keyboard.press('k');
        await expect(selectedItem(page)).toContainText(hashes[1]!.slice(0, 7));
        await expect(changedFiles(page)).toContainText('src/b.ts');
        await expect(page.getByRole('alert')).toHaveCount(0);
      } finally {
        await served.stop();
      }
    } finally {
      world.cleanup();
    }
  });
  test('a view whose code cannot load says so in its place, keeps the window, and loads on "Try again"', async ({
    page,
  }) => {
    await withSmallSession(async (world, served) => {
      // The diff editor's chunk fails on a live connection (as after a rebuild renamed it): tried again, then given up.
      const chunk = /\/assets\/MonacoDiff-[^/]*\.js$/;
      await page.route(chunk, (route) => route.abort('failed'));
      await page.setViewportSize({ width: 1400, height: 860 });
      await page.goto(served.url);
      const alert = page.getByRole('alert').filter({ hasText: 'This part of the window could not load' });
      await expect(alert).toBeVisible({ timeout: 15_000 });
      // The rest of the window stays and works.
      await expect(selectedItem(page)).toBeVisible();
      await expect(changedFiles(page)).toContainText('src/c.ts');
      await page.unroute(chunk);
      await alert.getByRole('button', { name: 'Try again' }).click();
      await expect(alert).toHaveCount(0);
      await expect(diffEditor(page)).toBeVisible();
    });
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

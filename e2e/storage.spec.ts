/// <reference lib="dom" />
/**
 * Storage per session in the app (issue 14 item 5): the header's storage size opens a Storage panel that lists
 * each session with its size and why it is kept; "Forget SESSION" asks for a confirmation, Cancel keeps it, and
 * "Forget for good" removes it (the CLI agrees). Through `retrace serve`, by accessible names.
 */
import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { cli, serve, tempWorld, type Served, type TempWorld } from './support/retrace';

let world: TempWorld;
let served: Served;

test.describe.configure({ timeout: 120_000 });

test.beforeEach(async () => {
  world = tempWorld();
  writeFileSync(join(world.dir, 'a.txt'), 'a\n');
  await cli(world, ['checkpoint', '--session', 'alpha', '--text', 'first']);
  writeFileSync(join(world.dir, 'big.bin'), randomBytes(64 * 1024));
  await cli(world, ['checkpoint', '--session', 'beta', '--text', 'second']);
  served = await serve(world);
});

test.afterEach(async () => {
  await served?.stop();
  world?.cleanup();
});

test('storage per session is shown, and a session is forgotten after a confirmation', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(served.url);
  await expect(page.getByRole('list', { name: 'Timeline' })).toBeVisible();

  const button = page.getByRole('button', { name: /^Storage \d/ });
  await expect(button).toHaveAttribute('aria-expanded', 'false');
  await button.click();
  const panel = page.getByRole('region', { name: 'Storage' });
  await expect(panel).toBeVisible();
  await expect(button).toHaveAttribute('aria-expanded', 'true');

  const rows = panel.getByRole('list', { name: 'Storage per session' }).getByRole('listitem');
  await expect(rows).toHaveCount(2);
  // Oldest activity first, each with its size; beta alone holds the 64 KiB file.
  await expect(rows.nth(0)).toContainText('alpha');
  await expect(rows.nth(1)).toContainText('beta');
  await expect(rows.nth(1)).toContainText(/\d+(\.\d)? KiB/);
  await expect(rows.nth(1)).toContainText('kept: being recorded now');
  await expect(panel.getByRole('form', { name: 'Storage budget' })).toBeVisible();

  // Forget asks first; Cancel changes nothing.
  await panel.getByRole('button', { name: 'Forget alpha' }).click();
  const confirm = panel.getByRole('group', { name: 'Confirm forgetting alpha' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  expect((await cli<{ id: string }[]>(world, ['sessions'])).map((s) => s.id).sort()).toEqual(['alpha', 'beta']);

  await panel.getByRole('button', { name: 'Forget alpha' }).click();
  await panel
    .getByRole('group', { name: 'Confirm forgetting alpha' })
    .getByRole('button', { name: 'Forget for good' })
    .click();
  await expect(panel.getByRole('status')).toHaveText('Forgot alpha');
  await expect(rows).toHaveCount(1);
  await expect(rows.nth(0)).toContainText('beta');
  expect((await cli<{ id: string }[]>(world, ['sessions'])).map((s) => s.id)).toEqual(['beta']);

  // A budget saved from the app is what `retrace gc` applies.
  await panel.getByRole('textbox', { name: 'Keep days' }).fill('30');
  await panel.getByRole('button', { name: 'Save budget' }).click();
  await expect(panel.getByRole('status')).toHaveText('Budget saved');
  const gc = await cli<{ removed: string[]; budget: { keepDays: number; maxBytes: number | null } }>(world, ['gc']);
  expect(gc).toMatchObject({ removed: [], budget: { keepDays: 30, maxBytes: null } });

  // Escape closes the panel and gives focus back to its button.
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(button).toBeFocused();
});

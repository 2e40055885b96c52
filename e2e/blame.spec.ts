/// <reference lib="dom" />
/**
 * The diff view's Blame toggle (issue 14 item 3): each line of the file as it is now with the step, prompt or
 * agent that last changed it; the hover says the prompt and the step; a click selects that checkpoint. A session
 * recorded with the real CLI, through `retrace serve` in Chromium, found by accessible names (UI.md).
 */
import { expect, test, type Page } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, serve, tempWorld, type Served, type TempWorld } from './support/retrace';

let world: TempWorld;
let served: Served;

const lines = (...l: string[]) => l.map((x) => `${x}\n`).join('');
const step = (role: string, text: string) =>
  cli<{ hash: string }>(world, ['message', '--role', role, '--text', text, '--checkpoint', '--session', 's']);

test.beforeAll(async () => {
  world = tempWorld();
  const write = (content: string) => writeFileSync(join(world.dir, 'a.ts'), content);
  write(lines('const base = 0;', 'const x = 1;', 'const y = 2;'));
  await step('user', 'Add helpers'); // step 1: the folder before anything happened
  write(lines('const base = 0;', 'const x = 10;', 'const y = 2;', 'helperA();', 'helperB();'));
  await step('tool', 'Edit a.ts'); // step 2: the agent
  write(lines('const base = 0;', 'const x = 10;', 'const y = 2;', 'mineA();', 'helperB();'));
  await step('user', 'Now tidy helperB'); // step 3: captures the person's edit of line 4
  write(lines('const base = 0;', 'const x = 10;', 'const y = 2;', 'mineA();', 'tidyB();'));
  await step('tool', 'Rewrite helperB'); // step 4: the agent again
  served = await serve(world);
});

test.afterAll(async () => {
  await served?.stop();
  world?.cleanup();
});

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });
const selectedItem = (page: Page) => timeline(page).locator('[role="listitem"][aria-current="true"]');
const blame = (page: Page) => page.getByRole('region', { name: 'Blame of a.ts' });
const gutter = (page: Page, line: number) =>
  blame(page)
    .getByRole('listitem')
    .nth(line - 1);

test('Blame shows who last changed each line, with the prompt and step on hover, and jumps to the step', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(served.url);
  await expect(timeline(page)).toBeVisible();
  await page.getByRole('list', { name: 'Changed files' }).getByRole('button', { name: /a\.ts/ }).first().click();

  const toggle = page.getByRole('button', { name: 'Blame', exact: true });
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(blame(page)).toBeVisible();
  await expect(blame(page).getByRole('listitem')).toHaveCount(5);

  await expect(gutter(page, 1)).toContainText('baseline');
  await expect(gutter(page, 2)).toContainText('Step 2 · cli');
  await expect(gutter(page, 3)).toContainText('baseline');
  await expect(gutter(page, 4)).toContainText('Step 3 · prompt');
  await expect(gutter(page, 5)).toContainText('Step 4 · cli');
  await expect(gutter(page, 5)).toContainText('tidyB();');

  // The hover names the prompt and the step.
  const line2 = gutter(page, 2).getByRole('button');
  await expect(line2).toHaveAttribute('title', /Prompt: Add helpers/);
  await expect(line2).toHaveAttribute('title', /Step: Edit a\.ts/);
  await expect(gutter(page, 5).getByRole('button')).toHaveAttribute(
    'title',
    /Prompt: Now tidy helperB[\s\S]*Step: Rewrite helperB/,
  );

  // A click selects that checkpoint in the timeline.
  await expect(selectedItem(page)).toContainText('Rewrite helperB');
  await line2.click();
  await expect(selectedItem(page)).toContainText('Edit a.ts');

  // Off again: the diff is back.
  await toggle.click();
  await expect(blame(page)).toHaveCount(0);
  await expect(page.locator('.monaco-diff-editor')).toBeVisible();
});

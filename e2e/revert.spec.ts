/// <reference lib="dom" />
/**
 * Beyond rewind in the app (issue 14 items 1–2), through `retrace serve`, by accessible names (UI.md):
 * "Revert this step" previews the revert (files, merged result as a diff), runs it on confirm keeping the
 * later step, and the banner's Undo brings the files back; "Restore hunk" puts one hunk back, reached by keyboard.
 */
import { expect, test, type Page } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, serve, tempWorld, type Served, type TempWorld } from './support/retrace';

let world: TempWorld;
let served: Served;

test.describe.configure({ timeout: 120_000 });

const lines = (n: number, edit: Record<number, string> = {}): string =>
  Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';
const write = (rel: string, content: string) => writeFileSync(join(world.dir, rel), content);
const read = (rel: string) => readFileSync(join(world.dir, rel), 'utf8');

test.beforeEach(async () => {
  world = tempWorld();
  // c1: the start · c2: the step to take back (a.txt line 2, b.txt) · c3: a later step (a.txt line 19).
  write('a.txt', lines(20));
  write('b.txt', 'b1\n');
  await cli(world, ['checkpoint', '--session', 's', '--text', 'start']);
  write('a.txt', lines(20, { 2: 'two (step 2)' }));
  write('b.txt', 'b2\n');
  await cli(world, ['checkpoint', '--session', 's', '--text', 'step 2']);
  write('a.txt', lines(20, { 2: 'two (step 2)', 19: 'nineteen (step 3)' }));
  await cli(world, ['checkpoint', '--session', 's', '--text', 'step 3']);
  served = await serve(world);
});

test.afterEach(async () => {
  await served?.stop();
  world?.cleanup();
});

async function open(page: Page): Promise<void> {
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(served.url);
  await expect(page.getByRole('list', { name: 'Timeline' })).toBeVisible();
  await expect(page.getByRole('slider', { name: 'Checkpoints' })).toHaveValue('2');
}

test('Revert this step: preview, confirm, later step kept, then Undo', async ({ page }) => {
  await open(page);
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('slider', { name: 'Checkpoints' })).toHaveValue('1');

  await page.getByRole('button', { name: 'Revert this step' }).click();
  const preview = page.getByRole('region', { name: 'Revert preview' });
  await expect(preview).toContainText('would change 2 files');
  const files = preview.getByRole('list', { name: 'Files the revert would change' });
  await expect(files.getByRole('listitem')).toHaveCount(2);
  // The merged result of a.txt as a diff: step 2's line is the change (step 3's, further down, stays).
  await files.getByRole('button', { name: /^a\.txt/ }).click();
  await expect(files.getByRole('button', { name: /^a\.txt/ })).toHaveAttribute('aria-pressed', 'true');
  const diff = preview.getByTestId('revert-diff');
  await expect(diff).toContainText('two (step 2)');
  await expect(diff.getByRole('textbox', { name: 'After the revert: a.txt' })).toBeAttached();
  expect(read('b.txt'), 'a preview changes nothing').toBe('b2\n');

  await preview.getByRole('button', { name: 'Confirm revert' }).click();
  await expect(page.getByRole('status')).toContainText('Reverted the step of');
  await expect(preview).toBeHidden();
  expect(read('a.txt')).toBe(lines(20, { 19: 'nineteen (step 3)' }));
  expect(read('b.txt')).toBe('b1\n');

  await page.getByRole('button', { name: 'Restores', exact: true }).click();
  await expect(page.getByRole('region', { name: 'Restores' })).toContainText('Reverted');

  await page.getByRole('status').getByRole('button', { name: 'Undo restore' }).click();
  await expect(page.getByRole('status')).toContainText('Undid the revert');
  expect(read('a.txt')).toBe(lines(20, { 2: 'two (step 2)', 19: 'nineteen (step 3)' }));
  expect(read('b.txt')).toBe('b2\n');
});

test('Revert this step with a conflict: the preview names it; confirming writes markers; Undo takes them out', async ({
  page,
}) => {
  write('a.txt', lines(20, { 2: 'two (edited now)', 19: 'nineteen (step 3)' }));
  await open(page);
  await page.keyboard.press('ArrowLeft');
  await page.getByRole('button', { name: 'Revert this step' }).click();
  const preview = page.getByRole('region', { name: 'Revert preview' });
  await expect(preview).toContainText('a.txt (1 conflicting hunk)');
  await expect(preview.getByRole('button', { name: /^a\.txt .*conflict: 1 hunk/ })).toBeVisible();
  expect(read('a.txt'), 'a preview changes nothing').toBe(
    lines(20, { 2: 'two (edited now)', 19: 'nineteen (step 3)' }),
  );

  await preview.getByRole('button', { name: 'Confirm revert with conflict markers' }).click();
  await expect(page.getByRole('status')).toContainText('conflict markers in a.txt');
  expect(read('a.txt')).toMatch(/^<<<<<<< .*\ntwo \(edited now\)\n=======\nline 2\n>>>>>>> /m);
  expect(read('b.txt')).toBe('b1\n');

  await page.getByRole('status').getByRole('button', { name: 'Undo restore' }).click();
  await expect(page.getByRole('status')).toContainText('Undid the revert');
  expect(read('a.txt')).toBe(lines(20, { 2: 'two (edited now)', 19: 'nineteen (step 3)' }));
  expect(read('b.txt')).toBe('b2\n');
});

test('Restore hunk: one hunk of "Since then" put back by keyboard, the other kept; Undo', async ({ page }) => {
  write('a.txt', lines(20, { 2: 'two (step 2)', 5: 'five (edited now)', 19: 'nineteen (step 3)' }));
  write('b.txt', 'b2\n');
  await open(page);
  await page.getByRole('radio', { name: 'Since then' }).click();
  await expect(page.getByRole('radio', { name: 'Since then' })).toBeChecked();
  const hunks = page.getByRole('region', { name: 'Hunks' });
  await expect(hunks.getByRole('button', { name: 'Restore hunk' })).toHaveCount(1);
  await expect(hunks.getByRole('button', { name: 'Revert hunk' })).toHaveCount(1);

  await hunks.getByRole('button', { name: 'Restore hunk' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status')).toContainText('Restored a hunk of a.txt');
  expect(read('a.txt')).toBe(lines(20, { 2: 'two (step 2)', 19: 'nineteen (step 3)' }));
  await expect(page.getByText('No files changed in this comparison.')).toBeVisible();

  await page.getByRole('status').getByRole('button', { name: 'Undo restore' }).click();
  await expect(page.getByRole('status')).toContainText('Undid');
  expect(read('a.txt')).toBe(lines(20, { 2: 'two (step 2)', 5: 'five (edited now)', 19: 'nineteen (step 3)' }));
});

test('Revert hunk: one hunk of a step taken back from the files now', async ({ page }) => {
  await open(page);
  await page.keyboard.press('ArrowLeft'); // step 2: a.txt (line 2) and b.txt
  await page.getByRole('list', { name: 'Changed files' }).getByText('a.txt').click();
  const hunks = page.getByRole('region', { name: 'Hunks' });
  await expect(hunks.getByRole('button', { name: 'Revert hunk' })).toHaveCount(1);
  await hunks.getByRole('button', { name: 'Revert hunk' }).click();
  await expect(page.getByRole('status')).toContainText('Reverted a hunk of a.txt');
  expect(read('a.txt')).toBe(lines(20, { 19: 'nineteen (step 3)' }));
  expect(read('b.txt')).toBe('b2\n');
});

/// <reference lib="dom" />
/**
 * I14 in the app (issue 12, defect 1): a banner's "Undo restore" undoes the restore that banner describes —
 * never a newer one made in another tab — or reports the conflict; every tab follows the ledger; after a reload
 * the Restores panel lists every restore and undo with Undo / Redo. Two tabs on one `retrace serve`.
 */
import { expect, test, type Browser, type Page } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, serve, tempWorld, type Served, type TempWorld } from './support/retrace';

let world: TempWorld;
let served: Served;

// Two tabs, a dozen restores and a reload each: longer than one walk step on a shared 2-core machine.
test.describe.configure({ timeout: 150_000 });

const write = (rel: string, content: string) => {
  mkdirSync(join(world.dir, rel, '..'), { recursive: true });
  writeFileSync(join(world.dir, rel), content);
};
const read = (rel: string) => readFileSync(join(world.dir, rel), 'utf8');
const disk = () => [read('a.txt'), read('b.txt')];

type Entry = { restore: string; mode: string; undone: boolean };
const ledger = () => cli<Entry[]>(world, ['restores']);

test.beforeEach(async () => {
  world = tempWorld();
  // c1: a1, b1 · c2: a2, b2 — the files on disk are those of c2.
  write('a.txt', 'a1\n');
  write('b.txt', 'b1\n');
  await cli(world, ['checkpoint', '--session', 's', '--text', 'first']);
  write('a.txt', 'a2\n');
  write('b.txt', 'b2\n');
  await cli(world, ['checkpoint', '--session', 's', '--text', 'second']);
  served = await serve(world);
});

test.afterEach(async () => {
  await served?.stop();
  world?.cleanup();
});

const banner = (page: Page) => page.getByRole('status');
const restoresPanel = (page: Page) => page.getByRole('region', { name: 'Restores' });
/** The row of entry `rid` (an undo row also mentions the id it took back, so match the row's own id exactly). */
const rowOf = (page: Page, rid: string) =>
  restoresPanel(page)
    .getByRole('listitem')
    .filter({ has: page.getByText(rid, { exact: true }) });

async function openTab(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(served.url);
  await expect(page.getByRole('list', { name: 'Timeline' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Changed files' }).getByRole('listitem')).toHaveCount(2);
  return page;
}

/** Select the first checkpoint (c1) and restore one of its files. */
async function restoreFileAtFirst(page: Page, path: string): Promise<void> {
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('slider', { name: 'Checkpoints' })).toHaveValue('0');
  await page
    .getByRole('list', { name: 'Changed files' })
    .getByRole('listitem')
    .filter({ hasText: path })
    .getByRole('button', { name: /^Restore file/ })
    .click();
  await expect(banner(page)).toContainText(`Restored ${path}`);
}

test("two tabs: A's banner undoes A's restore, not B's newer one; B's banner follows the ledger; Restores after a reload", async ({
  browser,
}) => {
  const a = await openTab(browser);
  const b = await openTab(browser);

  await restoreFileAtFirst(a, 'a.txt');
  expect(disk()).toEqual(['a1\n', 'b2\n']);
  await restoreFileAtFirst(b, 'b.txt');
  expect(disk()).toEqual(['a1\n', 'b1\n']);
  const [rb, ra] = await ledger();

  // A's banner: A's restore, although B's is the newest in the workspace.
  await banner(a).getByRole('button', { name: 'Undo restore' }).click();
  await expect(banner(a)).toContainText('Undid the restore (code): 1 file changed back');
  expect(disk()).toEqual(['a2\n', 'b1\n']);
  const [ua] = await ledger();
  expect(ua).toMatchObject({ mode: 'undo' });
  await expect(banner(a).getByRole('button', { name: 'Redo restore' })).toBeVisible();

  // B's banner still offers to undo B's restore; when A undoes it from the Restores panel, B's banner says so.
  await expect(banner(b).getByRole('button', { name: 'Undo restore' })).toBeEnabled();
  await a.getByRole('button', { name: 'Restores' }).click();
  await expect(restoresPanel(a).getByRole('listitem')).toHaveCount(3);
  await rowOf(a, rb!.restore).getByRole('button', { name: 'Undo' }).click();
  await expect.poll(disk).toEqual(['a2\n', 'b2\n']);
  await expect(banner(b)).toContainText('Since then this was undone');
  await expect(banner(b).getByRole('button', { name: 'Undo restore' })).toHaveCount(0);

  // A reload forgets the banner, not the ledger: the panel lists all four, newest first, with Undo / Redo.
  await a.reload();
  await expect(a.getByRole('list', { name: 'Timeline' })).toBeVisible();
  await expect(banner(a)).toHaveCount(0);
  await a.getByRole('button', { name: 'Restores' }).click();
  const rows = restoresPanel(a).getByRole('listitem');
  await expect(rows).toHaveCount(4);
  const [ub] = await ledger();
  await expect(rows.nth(0)).toContainText(ub!.restore);
  await expect(rows.nth(1)).toContainText(ua!.restore);
  await expect(rows.nth(2)).toContainText(rb!.restore);
  await expect(rows.nth(3)).toContainText(ra!.restore);
  await expect(rowOf(a, ub!.restore).getByRole('button', { name: 'Redo' })).toBeVisible();
  await expect(rowOf(a, ua!.restore).getByRole('button', { name: 'Redo' })).toBeVisible();
  await expect(rowOf(a, rb!.restore).getByRole('button')).toHaveCount(0); // undone
  await expect(rowOf(a, ra!.restore).getByRole('button')).toHaveCount(0); // undone

  // Redo A's restore from the panel: a.txt is back to c1's, b.txt untouched.
  await rowOf(a, ua!.restore).getByRole('button', { name: 'Redo' }).click();
  await expect.poll(disk).toEqual(['a1\n', 'b2\n']);
  await expect(restoresPanel(a).getByRole('listitem')).toHaveCount(5);

  // Keyboard: Esc closes the panel and gives focus back to its button.
  await restoresPanel(a).getByRole('button', { name: 'Close' }).focus();
  await a.keyboard.press('Escape');
  await expect(restoresPanel(a)).toHaveCount(0);
  await expect(a.getByRole('button', { name: 'Restores' })).toBeFocused();
  await a.keyboard.press('Enter');
  await expect(restoresPanel(a)).toBeVisible();
  await expect(restoresPanel(a).getByRole('heading', { name: 'Restores' })).toBeFocused();
});

test("A's banner Undo after B restored the same file: the conflict is reported and nothing changes", async ({
  browser,
}) => {
  const a = await openTab(browser);
  const b = await openTab(browser);

  // A: restore code to c1 (both files).
  await a.keyboard.press('ArrowLeft');
  await expect(a.getByRole('slider', { name: 'Checkpoints' })).toHaveValue('0');
  await a.getByRole('button', { name: 'Restore code' }).click();
  await expect(banner(a)).toContainText('Restored code to');
  expect(disk()).toEqual(['a1\n', 'b1\n']);
  // B: a.txt back to c2 (B's selection is still the newest checkpoint).
  await expect(b.getByRole('slider', { name: 'Checkpoints' })).toHaveValue('1');
  await b
    .getByRole('list', { name: 'Changed files' })
    .getByRole('listitem')
    .filter({ hasText: 'a.txt' })
    .getByRole('button', { name: /^Restore file/ })
    .click();
  await expect(banner(b)).toContainText('Restored a.txt');
  expect(disk()).toEqual(['a2\n', 'b1\n']);
  const [rb, ra] = await ledger();

  // A's banner now says a later restore overlaps; its Undo reports the conflict and changes nothing.
  await expect(banner(a)).toContainText('A later restore changed the same files');
  await banner(a).getByRole('button', { name: 'Undo restore' }).click();
  const alert = a.getByRole('alert');
  await expect(alert).toContainText('E_UNDO_CONFLICT');
  await expect(alert).toContainText(rb!.restore);
  expect(disk()).toEqual(['a2\n', 'b1\n']);
  expect(await ledger()).toHaveLength(2);

  // After a reload the panel lists both; only B's can be undone now, and once it is, A's can.
  await a.reload();
  await a.getByRole('button', { name: 'Restores' }).click();
  await expect(restoresPanel(a).getByRole('listitem')).toHaveCount(2);
  await expect(rowOf(a, ra!.restore).getByRole('button')).toHaveCount(0);
  await rowOf(a, rb!.restore).getByRole('button', { name: 'Undo' }).click();
  await expect.poll(disk).toEqual(['a1\n', 'b1\n']);
  await rowOf(a, ra!.restore).getByRole('button', { name: 'Undo' }).click();
  await expect.poll(disk).toEqual(['a2\n', 'b2\n']);
  await expect(banner(a)).toContainText('Undid the restore (code): 2 files changed back');
});

/// <reference lib="dom" />
/**
 * Issue 12's "Files", "Images" and "Diff" through `retrace serve`, by accessible names (UI.md): the file
 * filter, the folder tree and its keys, natural order, Copy path / Copy hash, the Image diff on a real PNG change
 * (made here with zlib), word wrap remembered across a reload, and the restore preview's list and Escape.
 */
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePng } from '../test/helpers/png';
import { cli, serve, tempWorld, type Served, type TempWorld } from './support/retrace';

const RED = makePng(8, 8, () => [220, 30, 30, 255]);
// Bigger, and two colours: blue on the left, green on the right.
const BLUE_GREEN = makePng(12, 12, (x) => (x < 6 ? [20, 40, 220, 255] : [20, 180, 60, 255]));
const LONG = (c: string) => `export const long = '${c.repeat(600)}';\n`;

function write(world: TempWorld, rel: string, content: string | Buffer): void {
  mkdirSync(join(world.dir, rel, '..'), { recursive: true });
  writeFileSync(join(world.dir, rel), content);
}

const files = (page: Page) => page.getByRole('list', { name: 'Changed files' });
const paths = (page: Page) => files(page).getByRole('listitem').locator('.path');
const slider = (page: Page) => page.getByRole('slider', { name: 'Checkpoints' });
const imageDiff = (page: Page) => page.getByRole('region', { name: 'Image diff' });

let world: TempWorld;
const hashes: string[] = [];

test.beforeAll(async () => {
  world = tempWorld();
  await cli(world, ['message', '--role', 'user', '--text', 'Start']);
  write(world, 'README.md', '# Files\n');
  write(world, 'pic.png', RED);
  write(world, 'src/file2.ts', 'export const two = 2;\n');
  write(world, 'src/file10.ts', 'export const ten = 10;\n');
  write(world, 'src/long.ts', LONG('x'));
  hashes.push((await cli<{ hash: string }>(world, ['checkpoint', '--text', 'First files'])).hash);
  write(world, 'pic.png', BLUE_GREEN);
  write(world, 'src/file2.ts', 'export const two = "two";\n');
  write(world, 'src/file10.ts', 'export const ten = "ten";\n');
  write(world, 'src/long.ts', LONG('y'));
  write(world, 'docs/guide.md', '# Guide\n');
  hashes.push((await cli<{ hash: string }>(world, ['checkpoint', '--text', 'Change them'])).hash);
});
test.afterAll(() => world?.cleanup());

async function open(page: Page): Promise<Served> {
  const served = await serve(world);
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(served.url);
  await expect(slider(page)).toHaveValue('1');
  await expect(paths(page)).toHaveCount(5);
  return served;
}

test('filter, natural order, folder tree with keys, copy path and hash', async ({ page, context }) => {
  const served = await open(page);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(served.url).origin });
  try {
    // Natural order: file2 before file10; the comparison opens on the first file.
    await expect(paths(page)).toHaveText(['docs/guide.md', 'pic.png', 'src/file2.ts', 'src/file10.ts', 'src/long.ts']);
    await expect(page.locator('.diff-path')).toHaveText('docs/guide.md');
    // Each file keeps its restore action, named with its path; no "Open in editor" under serve.
    await expect(files(page).getByRole('button', { name: 'Restore file src/file10.ts', exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: /^Open in editor/ })).toHaveCount(0);

    // The filter: a substring of the path, in any case.
    const filter = page.getByRole('searchbox', { name: 'Filter files' });
    await filter.fill('FILE');
    await expect(paths(page)).toHaveText(['src/file2.ts', 'src/file10.ts']);
    await filter.fill('nothing-like-this');
    await expect(paths(page)).toHaveCount(0);
    await expect(page.getByText('No changed file matches')).toBeVisible();
    await filter.press('Escape');
    await expect(filter).toHaveValue('');
    await expect(paths(page)).toHaveCount(5);

    // The tree: folders first, then files; a folder opens and closes with Enter, ↑/↓ walk the rows.
    const tree = page.getByRole('button', { name: 'Tree', exact: true });
    await expect(tree).toHaveAttribute('aria-pressed', 'false');
    await tree.click();
    await expect(tree).toHaveAttribute('aria-pressed', 'true');
    await expect(paths(page)).toHaveText(['docs/', 'guide.md', 'src/', 'file2.ts', 'file10.ts', 'long.ts', 'pic.png']);
    await filter.focus();
    await filter.press('ArrowDown'); // into the list, on the selected file (docs/guide.md)
    await expect(files(page).getByRole('button', { name: /^docs\/guide\.md/ })).toBeFocused();
    await page.keyboard.press('ArrowDown');
    const src = files(page).getByRole('button', { name: 'Folder src, 3 files' });
    await expect(src).toBeFocused();
    await expect(src).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('Enter');
    await expect(src).toHaveAttribute('aria-expanded', 'false');
    await expect(paths(page)).toHaveText(['docs/', 'guide.md', 'src/', 'pic.png']);
    await expect(src).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(paths(page)).toHaveCount(7);
    await page.keyboard.press('ArrowDown');
    await expect(page.locator('.diff-path')).toHaveText('src/file2.ts');
    await expect(files(page).getByRole('button', { name: /^src\/file2\.ts/ })).toBeFocused();

    // Copy path: a visible confirmation, and the path on the clipboard.
    await files(page).getByRole('button', { name: 'Copy path src/file2.ts', exact: true }).click();
    await expect(page.getByText('Copied path src/file2.ts')).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('src/file2.ts');
    // Copy hash: the selected checkpoint's full hash.
    await page.getByRole('button', { name: 'Copy hash', exact: true }).click();
    await expect(page.getByText(`Copied hash ${hashes[1]!.slice(0, 7)}`)).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(hashes[1]);

    // Back to the flat list (the choice is remembered, so leave it as found).
    await tree.click();
    await expect(paths(page)).toHaveCount(5);
  } finally {
    await served.stop();
  }
});

test('a changed PNG shows in the Image diff: side by side, swipe and onion skin', async ({ page }) => {
  const served = await open(page);
  try {
    await files(page)
      .getByRole('button', { name: /^pic\.png/ })
      .click();
    const region = imageDiff(page);
    await expect(region).toBeVisible();
    await expect(page.getByText('is a binary file')).toHaveCount(0);
    const before = region.getByRole('img', { name: 'Before: pic.png' });
    const after = region.getByRole('img', { name: 'After: pic.png' });
    await expect(before).toBeVisible();
    await expect(after).toBeVisible();
    // The real pictures: their natural sizes, and each side's dimensions and bytes in words.
    expect(await before.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([8, 8]);
    expect(await after.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([12, 12]);
    await expect(region).toContainText(`Before: 8 × 8 px, ${RED.length} bytes`);
    await expect(region).toContainText(`After: 12 × 12 px, ${BLUE_GREEN.length} bytes`);
    await expect(region.getByRole('radio', { name: 'Side by side' })).toBeChecked();
    // Shown through data: URLs in <img>, the type sniffed from the bytes.
    expect(await after.getAttribute('src')).toMatch(/^data:image\/png;base64,/);

    // Swipe: the old picture covers the left part, up to the slider.
    await region.getByRole('radio', { name: 'Swipe' }).check();
    const swipe = region.getByRole('slider', { name: 'Swipe position' });
    await expect(swipe).toHaveValue('50');
    await swipe.fill('30');
    await expect(region.getByRole('img', { name: 'Before: pic.png' })).toHaveCSS('clip-path', 'inset(0px 70% 0px 0px)');
    await swipe.focus();
    await page.keyboard.press('ArrowUp');
    await expect(swipe).toHaveValue('31');
    await expect(slider(page)).toHaveValue('1'); // ↑ moved the swipe, not the checkpoint

    // Onion skin: the new picture over the old, at the slider's opacity.
    await region.getByRole('radio', { name: 'Onion skin' }).check();
    const onion = region.getByRole('slider', { name: 'Onion skin opacity' });
    await onion.fill('25');
    await expect(region.getByRole('img', { name: 'After: pic.png' })).toHaveCSS('opacity', '0.25');
    await expect(region).toContainText('12 × 12 px');

    // Keyboard: the modes are radios (↓ moves between them).
    await region.getByRole('radio', { name: 'Onion skin' }).focus();
    await page.keyboard.press('ArrowUp');
    await expect(region.getByRole('radio', { name: 'Swipe' })).toBeChecked();
    await region.getByRole('radio', { name: 'Side by side' }).check();

    // Another file: the Image diff gives way to the text diff.
    await files(page)
      .getByRole('button', { name: /^src\/file2\.ts/ })
      .click();
    await expect(region).toHaveCount(0);
    await expect(page.locator('.monaco-diff-editor')).toContainText('"two"');
  } finally {
    await served.stop();
  }
});

test('word wrap applies to the diff editor and is remembered across a reload', async ({ page }) => {
  const served = await open(page);
  try {
    await files(page)
      .getByRole('button', { name: /^src\/long\.ts/ })
      .click();
    const modified = page.locator('.monaco-diff-editor .editor.modified');
    await expect(modified).toContainText('export const long');
    const wrap = page.getByRole('button', { name: 'Word wrap' });
    await expect(wrap).toHaveAttribute('aria-pressed', 'false');
    // Two lines: the long one and the empty one after its newline.
    await expect(modified.locator('.view-line')).toHaveCount(2);
    await wrap.click();
    await expect(wrap).toHaveAttribute('aria-pressed', 'true');
    // The long line now wraps onto several screen lines.
    await expect.poll(() => modified.locator('.view-line').count()).toBeGreaterThan(3);

    await page.reload();
    await expect(slider(page)).toHaveValue('1');
    await expect(page.getByRole('button', { name: 'Word wrap' })).toHaveAttribute('aria-pressed', 'true');
    await files(page)
      .getByRole('button', { name: /^src\/long\.ts/ })
      .click();
    await expect.poll(() => modified.locator('.view-line').count()).toBeGreaterThan(3);
    await page.getByRole('button', { name: 'Word wrap' }).click();
    await expect(page.getByRole('button', { name: 'Word wrap' })).toHaveAttribute('aria-pressed', 'false');
    await expect(modified.locator('.view-line')).toHaveCount(2);
  } finally {
    await served.stop();
  }
});

test('the restore preview lists each file with what a restore does and its lines; Escape closes it', async ({
  page,
}) => {
  const served = await open(page);
  try {
    await page.keyboard.press('ArrowLeft');
    await expect(slider(page)).toHaveValue('0');
    const button = page.getByRole('button', { name: 'Preview restore' });
    await button.click();
    const preview = page.getByRole('region', { name: 'Restore preview' });
    await expect(preview).toContainText('would change 5 files');
    const list = preview.getByRole('list', { name: 'Files a restore would change' });
    const item = (path: string) => list.getByRole('listitem').filter({ hasText: path });
    // Restoring the first checkpoint takes docs/guide.md away and puts the old lines back.
    await expect(item('docs/guide.md')).toContainText('deleted');
    await expect(item('docs/guide.md')).toContainText('+0 −1');
    await expect(item('src/file2.ts')).toContainText('modified');
    await expect(item('src/file2.ts')).toContainText('+1 −1');
    await expect(item('pic.png')).toContainText('modified');
    await expect(item('pic.png')).not.toContainText('+');
    // Nothing changed on disk: the files are still the second checkpoint's.
    expect(readFileSync(join(world.dir, 'src/file2.ts'), 'utf8')).toContain('"two"');

    await page.keyboard.press('Escape');
    await expect(preview).toHaveCount(0);
    await expect(button).toBeFocused();
  } finally {
    await served.stop();
  }
});

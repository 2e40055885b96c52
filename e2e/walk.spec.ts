/// <reference lib="dom" />
/**
 * The user's walk through `retrace serve` on a session recorded through the real CLI: open, see the
 * timeline, scrub with the keys, read the diff in Monaco, restore code / conversation / both, undo.
 */
import { shoot } from './support/screenshots';
import { expect, test, type Page } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { cli, serve, tempWorld, type Served, type TempWorld } from './support/retrace';

const GREET_V1 = "export function greet() {\n  return 'hello';\n}\n";
const GREET_V2 = 'export function greet(name) {\n  return `hello, ${name}`;\n}\n';
const GREET_V3 = 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n';
const UTIL = 'export const shout = (s) => s.toUpperCase();\n';
const README = '# Greeter\n\nSays hello.\n';
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a6a50000000049454e44ae426082',
  'hex',
);

let world: TempWorld;
let served: Served;
const hashes: string[] = [];

function write(rel: string, content: string | Buffer): void {
  mkdirSync(join(world.dir, rel, '..'), { recursive: true });
  writeFileSync(join(world.dir, rel), content);
}
const read = (rel: string) => readFileSync(join(world.dir, rel), 'utf8');
const exists = (rel: string) => existsSync(join(world.dir, rel));

test.beforeAll(async () => {
  world = tempWorld();
  // m1 user · c1 checkpoint · m2 assistant · c2 tool checkpoint · c3 checkpoint · m3 user
  await cli(world, ['message', '--role', 'user', '--text', 'Create a greeting module with a README']);
  write('src/greet.js', GREET_V1);
  write('README.md', README);
  hashes.push((await cli<{ hash: string }>(world, ['checkpoint', '--text', 'Created greet.js and README'])).hash);
  await cli(world, ['message', '--role', 'assistant', '--text', 'Now greet takes a name, and util.js can shout.']);
  write('src/greet.js', GREET_V2);
  write('src/util.js', UTIL);
  hashes.push(
    (
      await cli<{ hash: string }>(world, [
        'message',
        '--role',
        'tool',
        '--text',
        'Edit src/greet.js; Write src/util.js',
        '--checkpoint',
      ])
    ).hash,
  );
  write('src/greet.js', GREET_V3);
  write('logo.png', PNG);
  rmSync(join(world.dir, 'README.md'));
  hashes.push(
    (await cli<{ hash: string }>(world, ['checkpoint', '--text', 'Polish: capital H, a logo, no README'])).hash,
  );
  await cli(world, ['message', '--role', 'user', '--text', 'Thanks, looks good']);
  served = await serve(world);
});

test.afterAll(async () => {
  await served?.stop();
  world?.cleanup();
});

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });
const items = (page: Page) => timeline(page).getByRole('listitem');
const selectedItem = (page: Page) => timeline(page).locator('[role="listitem"][aria-current="true"]');
const diffEditor = (page: Page) => page.locator('.monaco-diff-editor');

async function expectSelected(page: Page, index: number) {
  await expect(selectedItem(page)).toContainText(hashes[index]!.slice(0, 7));
  await expect(page.getByRole('slider', { name: 'Checkpoints' })).toHaveValue(String(index));
}

test('open, scrub with the keys, read the diff, restore code / conversation / both and undo', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const workers: string[] = [];
  page.on('worker', (w) => workers.push(w.url()));
  // Everything (Monaco, its workers, fonts) comes from the local server: nothing from a CDN.
  const foreign: string[] = [];
  const origin = new URL(served.url).origin;
  page.on('request', (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith('blob:') && !r.url().startsWith('data:'))
      foreign.push(r.url());
  });

  await page.goto(served.url);
  await expect(timeline(page)).toBeVisible();
  await expect(items(page)).toHaveCount(6);
  await expect(page.getByRole('button', { name: 'Sessions', exact: true })).toBeVisible();
  await expect(page.getByText(world.dir.split('/').pop()!, { exact: false }).first()).toBeVisible();
  // The newest checkpoint is selected; its row shows the short hash and what changed.
  await expectSelected(page, 2);
  await expect(selectedItem(page)).toContainText('3 files');
  const files = page.getByRole('list', { name: 'Changed files' });
  await expect(files.getByRole('listitem')).toHaveCount(3);
  await expect(files.getByRole('listitem').filter({ hasText: 'logo.png' })).toContainText('binary');
  await expect(files.getByRole('listitem').filter({ hasText: 'README.md' })).toContainText('deleted');
  await expect(page.getByRole('radio', { name: 'This step' })).toBeChecked();

  // Scrub: ← and k go back, → and j forward.
  await page.keyboard.press('ArrowLeft');
  await expectSelected(page, 1);
  await expect(files.getByRole('listitem')).toHaveCount(2);
  await expect(diffEditor(page)).toContainText('hello, ${name}');
  await page.keyboard.press('k');
  await expectSelected(page, 0);
  // Each checkpoint opens on its first file (README.md here); the list picks another.
  await expect(diffEditor(page)).toContainText('Says hello.');
  await files.getByRole('button', { name: /^src\/greet\.js/ }).click();
  await expect(diffEditor(page)).toContainText("return 'hello';");
  await page.keyboard.press('j');
  await expectSelected(page, 1);
  await page.keyboard.press('ArrowRight');
  await expectSelected(page, 2);
  await files.getByRole('button', { name: /^src\/greet\.js/ }).click();
  await expect(diffEditor(page)).toContainText('Hello, ${name}!');
  await expect(page.locator('.monaco-diff-editor .editor.original')).toContainText('hello, ${name}');
  // The diff itself was computed, off the page's thread by Monaco's editor worker (served locally).
  await expect(page.locator('.monaco-diff-editor .line-insert').first()).toBeVisible();
  await expect(page.locator('.monaco-diff-editor .line-delete').first()).toBeVisible();
  expect(workers.some((u) => u.startsWith(new URL(served.url).origin) && /editor\.worker/.test(u))).toBe(true);

  // A picture shows as one (the Image diff), not as an editor; Inline switches the editor's layout.
  await files.getByRole('button', { name: /^logo\.png/ }).click();
  await expect(
    page.getByRole('region', { name: 'Image diff' }).getByRole('img', { name: 'After: logo.png' }),
  ).toBeVisible();
  await files.getByRole('button', { name: /^src\/greet\.js/ }).click();
  await expect(diffEditor(page)).toBeVisible();
  await shoot(page, 'main-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('.monaco-editor.vs-dark').first()).toBeVisible();
  await shoot(page, 'main-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('button', { name: 'Inline' }).click();
  await expect(page.getByRole('button', { name: 'Inline' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.monaco-diff-editor.side-by-side')).toHaveCount(0);
  await page.getByRole('button', { name: 'Inline' }).click();

  // "Since then": the selected checkpoint against the files as they are now.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expectSelected(page, 0);
  await page.getByRole('radio', { name: 'Since then' }).check();
  await expect(files.getByRole('listitem')).toHaveCount(4);
  // Any two checkpoints: from the first to the one selected (the newest). (Arrows on a focused radio move
  // between the radios, as they should; leave it first.)
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expectSelected(page, 2);
  await page.getByRole('radio', { name: 'Two checkpoints' }).check();
  await page.getByRole('combobox', { name: 'Compare from' }).selectOption({ index: 0 });
  await expect(files.getByRole('listitem')).toHaveCount(4);
  await expect(files).toContainText('src/util.js');
  await page.getByRole('combobox', { name: 'Compare from' }).selectOption({ index: 1 });
  await expect(files.getByRole('listitem')).toHaveCount(3);
  await page.getByRole('radio', { name: 'This step' }).check();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expectSelected(page, 0);

  // Preview changes nothing.
  await page.getByRole('button', { name: 'Preview restore' }).click();
  const preview = page.getByRole('region', { name: 'Restore preview' });
  await expect(preview).toContainText('would change 4 files');
  await expect(preview).toContainText('src/util.js');
  await shoot(page, 'preview-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shoot(page, 'preview-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  expect(read('src/greet.js')).toBe(GREET_V3);
  await page.getByRole('button', { name: 'Close preview' }).click();

  // Restore code to the first checkpoint: the files on disk are those of the checkpoint.
  await page.getByRole('button', { name: 'Restore code' }).click();
  const banner = page.getByRole('status');
  await expect(banner).toContainText(`Restored code to ${hashes[0]!.slice(0, 7)}`);
  await expect(banner).toContainText('4 files changed');
  expect(read('src/greet.js')).toBe(GREET_V1);
  expect(read('README.md')).toBe(README);
  expect(exists('src/util.js')).toBe(false);
  expect(exists('logo.png')).toBe(false);
  await expect(items(page)).toHaveCount(6); // the conversation is untouched
  await shoot(page, 'restored-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shoot(page, 'restored-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Undo restore: the files are back.
  await banner.getByRole('button', { name: 'Undo restore' }).click();
  await expect(banner).toContainText('Undid the restore');
  expect(read('src/greet.js')).toBe(GREET_V3);
  expect(read('src/util.js')).toBe(UTIL);
  expect(readFileSync(join(world.dir, 'logo.png')).equals(PNG)).toBe(true);
  expect(exists('README.md')).toBe(false);

  // Restore conversation to the second checkpoint: the later messages leave the timeline, files stay.
  await page.keyboard.press('ArrowRight');
  await expectSelected(page, 1);
  await page.getByRole('button', { name: 'Restore conversation' }).click();
  await expect(banner).toContainText('2 later messages hidden');
  await expect(items(page)).toHaveCount(4);
  await expect(timeline(page)).not.toContainText('Thanks, looks good');
  await expect(timeline(page)).not.toContainText('Polish: capital H');
  expect(read('src/greet.js')).toBe(GREET_V3);
  // "Show rewound" lists them again, marked.
  await page.getByRole('button', { name: 'Show rewound' }).click();
  await expect(items(page)).toHaveCount(6);
  await expect(items(page).filter({ hasText: 'Thanks, looks good' })).toContainText('rewound');
  await page.getByRole('button', { name: 'Show rewound' }).click();
  await expect(items(page)).toHaveCount(4);
  await banner.getByRole('button', { name: 'Undo restore' }).click();
  await expect(items(page)).toHaveCount(6);

  // Restore both to the first checkpoint, then undo it.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expectSelected(page, 0);
  await page.getByRole('button', { name: 'Restore both' }).click();
  await expect(banner).toContainText(`Restored code and conversation to ${hashes[0]!.slice(0, 7)}`);
  await expect(items(page)).toHaveCount(2);
  expect(read('src/greet.js')).toBe(GREET_V1);
  expect(exists('src/util.js')).toBe(false);
  await banner.getByRole('button', { name: 'Undo restore' }).click();
  await expect(banner).toContainText('Undid the restore');
  await expect(items(page)).toHaveCount(6);
  expect(read('src/greet.js')).toBe(GREET_V3);
  expect(read('src/util.js')).toBe(UTIL);

  // Per-file restore.
  await expectSelected(page, 0);
  await files
    .getByRole('listitem')
    .filter({ hasText: 'src/greet.js' })
    .getByRole('button', { name: 'Restore file' })
    .click();
  await expect(banner).toContainText('Restored src/greet.js');
  expect(read('src/greet.js')).toBe(GREET_V1);
  expect(read('src/util.js')).toBe(UTIL);
  await banner.getByRole('button', { name: 'Undo restore' }).click();
  await expect(banner).toContainText('Undid the restore');
  expect(read('src/greet.js')).toBe(GREET_V3);

  expect(errors).toEqual([]);
  expect(foreign).toEqual([]);
});

test('a folder that cannot be opened is an alert with its code; the Open folder screen then opens a good one', async ({
  page,
}) => {
  // Started from "/" with no folder: the page opens on its "Open folder" screen.
  const bare = await serve(world, { dir: null, cwd: '/' });
  try {
    await page.setViewportSize({ width: 1400, height: 860 });
    await page.goto(bare.url);
    const input = page.getByRole('textbox', { name: 'Folder path' });
    await expect(input).toBeVisible();
    await input.fill(join(world.dir, 'no-such-folder'));
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('E_NOT_FOUND');
    await shoot(page, 'open-folder-error-light');
    await input.fill(world.dir);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.getByRole('list', { name: 'Timeline' }).getByRole('listitem')).toHaveCount(6);
  } finally {
    await bare.stop();
  }
});

test('a folder with no sessions says how to record one, and how to bring a moved folder its history', async ({
  page,
}) => {
  const empty = tempWorld();
  const served = await serve(empty);
  try {
    await page.goto(served.url);
    const note = page.locator('.empty-note').filter({ hasText: 'No sessions in this folder yet' });
    await expect(note).toContainText('No sessions in this folder yet');
    await expect(note).toContainText('retrace move OLD_PATH');
  } finally {
    await served.stop();
    empty.cleanup();
  }
});

/**
 * A world whose folder recorded one message and checkpoint at `before`, then was renamed to `moved.dir`: `fn` runs
 * with the app served on the new path, and everything is stopped and removed after.
 */
async function onRenamedAfterRecording(
  fn: (o: { moved: TempWorld; before: string; url: string }) => Promise<void>,
): Promise<void> {
  const moved = tempWorld();
  const before = join(dirname(moved.dir), `${basename(moved.dir)}-before`);
  try {
    renameSync(moved.dir, before);
    writeFileSync(join(before, 'a.txt'), 'one\n');
    await cli({ ...moved, dir: before }, ['message', '--role', 'user', '--text', 'Recorded before the rename']);
    await cli({ ...moved, dir: before }, ['checkpoint']);
    renameSync(before, moved.dir);
    const served = await serve(moved);
    try {
      await fn({ moved, before, url: served.url });
    } finally {
      await served.stop();
    }
  } finally {
    rmSync(before, { recursive: true, force: true });
    moved.cleanup();
  }
}

test("a folder that was renamed: the empty timeline offers the old path's history, and one click brings it", async ({
  page,
}) => {
  await onRenamedAfterRecording(async ({ before, url }) => {
    await page.goto(url);
    const offer = page.getByRole('group', { name: 'Histories of moved folders' });
    const bring = offer.getByRole('button', { name: `Bring the history of ${before} (1 session)` });
    await expect(bring).toBeVisible();
    await bring.click();
    await expect(page.getByRole('list', { name: 'Timeline' })).toContainText('Recorded before the rename');
    await expect(offer).toHaveCount(0);
    // Its checkpoint is selected at the new path: a restore is offered.
    await expect(page.getByRole('button', { name: 'Restore code' })).toBeEnabled();
  });
});

test('a window open on the renamed folder follows a retrace move run in a terminal, with no reload', async ({
  page,
}) => {
  await onRenamedAfterRecording(async ({ moved, before, url }) => {
    await page.goto(url);
    await expect(page.getByRole('group', { name: 'Histories of moved folders' })).toBeVisible();
    await cli(moved, ['move', before]);
    await expect(page.getByRole('list', { name: 'Timeline' })).toContainText('Recorded before the rename');
  });
});

test('the timeline follows new messages live while the CLI records', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(served.url);
  await expect(items(page)).toHaveCount(6);
  await expectSelected(page, 2);
  await cli(world, ['message', '--role', 'assistant', '--text', 'Working on it live']);
  await expect(items(page)).toHaveCount(7);
  await expect(timeline(page)).toContainText('Working on it live');
  write('src/live.js', 'export const live = true;\n');
  const { hash } = await cli<{ hash: string }>(world, ['checkpoint', '--text', 'Live checkpoint']);
  await expect(items(page)).toHaveCount(8);
  // The newest checkpoint was selected, so the selection follows to the new one, with its diff.
  await expect(selectedItem(page)).toContainText(hash.slice(0, 7));
  await expect(page.getByRole('list', { name: 'Changed files' })).toContainText('src/live.js');
  await expect(diffEditor(page)).toContainText('export const live = true;');
});

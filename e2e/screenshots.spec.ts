/// <reference lib="dom" />
/**
 * The README's pictures of issue 12's views (and the Blame, Revert preview and Storage views), each in the light
 * and the dark theme: a small demo folder recorded through the real CLI — an imported Claude Code transcript with
 * a Bash call, an edit, thinking and usage, and a recorded session with a PNG change, a label, a restore and its
 * undo — opened through `retrace serve` in Chromium and driven by accessible names (UI.md).
 * Only `npm run screenshots` (RETRACE_SCREENSHOTS=1) runs it: `npm test` never rewrites docs/screenshots.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { detailsTranscript } from '../test/integrations/claudeDetailsTranscript';
import { makePng } from '../test/helpers/png';
import { shoot } from './support/screenshots';
import { cli, serve, tempWorld, type Served, type TempWorld } from './support/retrace';

const SHOTS = process.env.RETRACE_SCREENSHOTS === '1';
const SKIP_REASON = 'screenshots are made by `npm run screenshots` only (RETRACE_SCREENSHOTS=1)';
// Say it plainly in the run's output too: the list reporter only shows a skipped test's title.
if (!SHOTS) console.log(`screenshots e2e: skipped — ${SKIP_REASON}`);
test.skip(!SHOTS, SKIP_REASON);

// Same pictures on every machine: one viewport, one time zone, one locale.
test.use({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC', locale: 'en-US' });
test.describe.configure({ timeout: 120_000 });

const GREET_V1 = "export function greet(): string {\n  return 'hello';\n}\n";
const GREET_V2 = 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n';
const GREET_V3 = `${GREET_V2}\nexport function greetAll(names: string[]): string[] {\n  return names.map(greet);\n}\n`;
const UTIL = 'export const shout = (s: string): string => s.toUpperCase();\n';
const README = '# Greeter\n\nSays hello to whoever asks.\n';
// A 64 × 64 logo: a blue disc on white, then redrawn as an orange one on a striped ground.
const disc = (x: number, y: number) => (x - 32) ** 2 + (y - 32) ** 2 < 22 ** 2;
const LOGO_V1 = makePng(64, 64, (x, y) => (disc(x, y) ? [40, 90, 220, 255] : [255, 255, 255, 255]));
const LOGO_V2 = makePng(64, 64, (x, y) =>
  disc(x, y) ? [240, 130, 30, 255] : (x + y) % 16 < 8 ? [250, 240, 220, 255] : [235, 220, 190, 255],
);

// A fixed folder, so the header shows the same path in every picture and on every run.
const DEMO_DIR = join(tmpdir(), 'retrace-screenshots', 'greeter');

let world: TempWorld;
let served: Served;
const steps: string[] = [];

function write(rel: string, content: string | Buffer): void {
  mkdirSync(join(world.dir, rel, '..'), { recursive: true });
  writeFileSync(join(world.dir, rel), content);
}
const say = async (role: string, text: string, checkpoint: boolean) => {
  const res = await cli<{ hash: string | null }>(world, [
    'message',
    '--session',
    'greeter',
    '--role',
    role,
    '--text',
    text,
    ...(checkpoint ? ['--checkpoint'] : []),
  ]);
  if (res.hash) steps.push(res.hash);
};

test.beforeAll(async () => {
  const temp = tempWorld();
  rmSync(dirname(DEMO_DIR), { recursive: true, force: true });
  mkdirSync(DEMO_DIR, { recursive: true });
  world = {
    ...temp,
    dir: DEMO_DIR,
    cleanup() {
      temp.cleanup();
      rmSync(dirname(DEMO_DIR), { recursive: true, force: true });
    },
  };
  // An agent's session, imported: Claude Code ran the tests, fixed the greeting and wrote notes (March 2026).
  write('greet.js', "export const greeting = 'Hello';\n");
  const transcript = join(world.home, 'transcript.jsonl');
  writeFileSync(transcript, detailsTranscript(realpathSync(world.dir)));
  await cli(world, ['import', 'claude-code', transcript]);

  // A session recorded through the CLI (newer, so it opens first): three steps, a label, a restore and its undo.
  write('src/greet.ts', GREET_V1);
  write('README.md', README);
  write('assets/logo.png', LOGO_V1);
  await say('user', 'Add a greeting module with a README and a logo', true);
  write('src/greet.ts', GREET_V2);
  write('src/util.ts', UTIL);
  await say('tool', 'Edit src/greet.ts; Write src/util.ts', true);
  await say('assistant', 'greet now takes a name, and util.ts can shout.', false);
  await say('user', 'Greet a whole list too, and make the logo warmer', false);
  write('src/greet.ts', GREET_V3);
  write('assets/logo.png', LOGO_V2);
  await say('tool', 'Edit src/greet.ts; redraw assets/logo.png', true);
  await say('assistant', 'Added greetAll and a new orange logo.', false);
  await cli(world, ['label', steps[1]!, 'Greeting takes a name']);
  await cli(world, ['restore', steps[0]!, '--code']);
  await cli(world, ['undo']);
  served = await serve(world);
});

test.afterAll(async () => {
  await served?.stop();
  world?.cleanup();
});

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });
const slider = (page: Page) => page.getByRole('slider', { name: 'Checkpoints' });
const changedFiles = (page: Page) => page.getByRole('list', { name: 'Changed files' });

async function open(page: Page): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(served.url);
  await expect(timeline(page)).toBeVisible();
  await expect(slider(page)).toHaveValue('2');
}

/** The window in the light theme, then the same in the dark one, once `ready` shows. */
async function shootBoth(page: Page, name: string, ready: Locator): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(ready).toBeVisible();
    // Let the theme's colours (Monaco's too) settle before the picture.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.mouse.move(0, 0);
    await shoot(page, `${name}-${scheme}`);
  }
}

test('Message: an imported Claude Code Bash call with its command and what it printed', async ({ page }) => {
  await open(page);
  await page.getByRole('button', { name: 'Sessions', exact: true }).click();
  await page
    .getByRole('list', { name: 'Session list' })
    .getByRole('button', { name: /Run the tests, then fix the greeting/ })
    .click();
  await timeline(page)
    .getByRole('button', { name: /^tool Bash npm test/ })
    .click();
  const region = page.getByRole('region', { name: 'Message', exact: true });
  const call = region.getByRole('group', { name: 'Tool call Bash' });
  await expect(call.getByLabel('Input')).toHaveText('npm test -- --reporter=dot');
  await expect(call.getByLabel('Output')).toContainText('1 failing');
  await shootBoth(page, 'message', region);
});

test('Search: matches for a word in every session of the folder, with the filters', async ({ page }) => {
  await open(page);
  await page.getByRole('searchbox', { name: 'Search' }).fill('greet');
  await page.getByRole('checkbox', { name: 'All sessions' }).check();
  const others = page.getByRole('list', { name: 'Other sessions' });
  await expect(others.getByRole('listitem').first()).toBeVisible();
  await expect(page.getByRole('checkbox', { name: 'Changes only' })).toBeVisible();
  await shootBoth(page, 'search', others);
});

test('Session list: the imported Claude Code session and the recorded one', async ({ page }) => {
  await open(page);
  await page.getByRole('button', { name: 'Sessions', exact: true }).click();
  const list = page.getByRole('list', { name: 'Session list' });
  await expect(list.getByRole('listitem')).toHaveCount(2);
  await shootBoth(page, 'sessions', list);
});

test('Image diff: the redrawn logo in Swipe mode', async ({ page }) => {
  await open(page);
  await changedFiles(page)
    .getByRole('button', { name: /^assets\/logo\.png/ })
    .click();
  const region = page.getByRole('region', { name: 'Image diff' });
  await region.getByRole('radio', { name: 'Swipe' }).check();
  await region.getByRole('slider', { name: 'Swipe position' }).fill('45');
  await expect(region.getByRole('img', { name: 'After: assets/logo.png' })).toBeVisible();
  await shootBoth(page, 'image-diff', region);
});

test('Restores panel: a code restore and its undo', async ({ page }) => {
  await open(page);
  await page.getByRole('button', { name: 'Restores', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Restores' });
  await expect(panel.getByRole('listitem')).toHaveCount(2);
  await shootBoth(page, 'restores', panel);
});

test('Blame: who last changed each line of src/greet.ts', async ({ page }) => {
  await open(page);
  await changedFiles(page)
    .getByRole('button', { name: /^src\/greet\.ts/ })
    .click();
  await page.getByRole('button', { name: 'Blame', exact: true }).click();
  const blame = page.getByRole('region', { name: 'Blame of src/greet.ts' });
  await expect(blame.getByRole('listitem')).toHaveCount(7);
  await shootBoth(page, 'blame', blame);
});

test('Revert preview: taking back the labelled step while keeping the later one', async ({ page }) => {
  await open(page);
  await timeline(page)
    .getByRole('listitem')
    .filter({ hasText: 'Greeting takes a name' })
    .getByRole('button')
    .first()
    .click();
  await expect(slider(page)).toHaveValue('1');
  await page.getByRole('button', { name: 'Revert this step' }).click();
  const preview = page.getByRole('region', { name: 'Revert preview' });
  const files = preview.getByRole('list', { name: 'Files the revert would change' });
  await expect(files.getByRole('listitem')).toHaveCount(2);
  await files.getByRole('button', { name: /^src\/greet\.ts/ }).click();
  await expect(preview.locator('.monaco-diff-editor')).toBeVisible();
  await shootBoth(page, 'revert-preview', preview);
});

test('Storage: what each session keeps, and the budget', async ({ page }) => {
  await open(page);
  await page.getByRole('button', { name: /^Storage \d/ }).click();
  const panel = page.getByRole('region', { name: 'Storage' });
  await expect(panel.getByRole('list', { name: 'Storage per session' }).getByRole('listitem')).toHaveCount(2);
  await shootBoth(page, 'storage', panel);
});

/**
 * Message reading (issue 12, UI.md): a synthetic Claude Code transcript imported through the CLI, read in the
 * region named "Message" through `retrace serve` — a Bash call and what it printed, an edit's patch, a Write's
 * text, thinking (folded), model and tokens, a cut output — by clicks, j/k and the region's own buttons, in
 * both themes. And a timeline row's own text: one line cut at the width when a checkpoint line sits below it.
 */
import { expect, test, type Page } from '@playwright/test';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detailsTranscript, LONG_OUTPUT_LENGTH } from '../test/integrations/claudeDetailsTranscript';
import { cli, serve, tempWorld, type TempWorld } from './support/retrace';

const region = (page: Page) => page.getByRole('region', { name: 'Message', exact: true });
/** A timeline row by its accessible name (role, then text). */
const row = (page: Page, name: RegExp) => page.getByRole('list', { name: 'Timeline' }).getByRole('button', { name });
/** The value of one of the region's facts (Role, Time, Model, Tokens…). */
const fact = (page: Page, label: string) =>
  region(page)
    .locator('.message-facts > div')
    .filter({ has: page.locator('dt', { hasText: label }) })
    .locator('dd');
const call = (page: Page, name: string) => region(page).getByRole('group', { name: `Tool call ${name}` });

let world: TempWorld;
test.beforeAll(async () => {
  world = tempWorld();
  writeFileSync(join(world.dir, 'greet.js'), "export const greeting = 'Hello';\n");
  const file = join(world.home, 'transcript.jsonl');
  writeFileSync(file, detailsTranscript(realpathSync(world.dir)));
  await cli(world, ['import', 'claude-code', file]);
});
test.afterAll(() => world?.cleanup());

test('selecting any message shows it whole: text, tool calls with input and output, patch, thinking, model and tokens', async ({
  page,
}) => {
  const served = await serve(world);
  try {
    await page.setViewportSize({ width: 1400, height: 860 });
    await page.goto(served.url);
    // The latest checkpoint is selected: its message shows, with its role and date and time.
    await expect(region(page)).toContainText('Stop there, thanks');
    await expect(fact(page, 'Role')).toHaveText('user');
    await expect(region(page).locator('time')).toHaveAttribute('datetime', /^2026-03-14T09:30:\d\d/);
    await expect(region(page).locator('time')).toContainText('2026');

    // A Bash result row: the command and what it printed.
    await row(page, /^tool Bash npm test/).click();
    await expect(call(page, 'Bash').getByLabel('Input')).toHaveText('npm test -- --reporter=dot');
    await expect(call(page, 'Bash').getByLabel('Output')).toHaveText('3 passing\n1 failing: greeting says Helo');

    // The response that made the call: its text, model, tokens, and its thinking folded under "Thinking".
    await row(page, /^assistant Running the tests\./).click();
    await expect(region(page).locator('.message-text')).toHaveText(
      'Running the tests.\n\n[Bash npm test -- --reporter=dot]',
    );
    await expect(fact(page, 'Model')).toHaveText('claude-test-1');
    await expect(fact(page, 'Tokens')).toHaveText('12 in · 42 out · 6,789 cache read · 345 cache write');
    await expect(fact(page, 'Cost')).toHaveText('$0.0123');
    const thinking = region(page).getByText('The person wants the tests run first.');
    await expect(thinking).toBeHidden();
    await region(page).getByText('Thinking', { exact: true }).click();
    await expect(thinking).toBeVisible();

    // j/k move the checkpoint and the region follows: the Write's text, then the Edit's patch.
    await page.keyboard.press('k');
    await expect(call(page, 'Write').getByLabel('Patch')).toHaveText('+# Notes\n+Greeting fixed.\n');
    await page.keyboard.press('k');
    const patch = call(page, 'Edit').getByLabel('Patch');
    await expect(patch).toContainText("-export const greeting = 'Helo';");
    await expect(patch).toContainText("+export const greeting = 'Hello';");
    await expect(patch.locator('.patch-del')).toHaveCount(1);
    await expect(patch.locator('.patch-ins')).toHaveCount(1);

    // From the keyboard alone: the region's buttons step through every message, checkpoint or not.
    await region(page).getByRole('button', { name: 'Next message' }).focus();
    await page.keyboard.press('Enter');
    await expect(region(page).locator('.message-text')).toHaveText('[Write NOTES.md]');
    await page.keyboard.press('Enter');
    await expect(call(page, 'Write')).toBeVisible();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await expect(call(page, 'Bash').getByLabel('Input')).toHaveText('cat big.log');
    const output = call(page, 'Bash').getByLabel('Output');
    await expect(output).toContainText(`(cut: ${LONG_OUTPUT_LENGTH - 65536} more characters not kept)`);
    await page.keyboard.press('Enter');
    // A call that never got a result shows on the response that made it.
    await expect(region(page).locator('.message-text')).toHaveText('One more check.\n\n[Bash npm run lint]');
    await expect(call(page, 'Bash').getByLabel('Input')).toHaveText('npm run lint');
    await expect(call(page, 'Bash').getByLabel('Output')).toHaveCount(0);
    await region(page).getByRole('button', { name: 'Previous message' }).click();
    await expect(call(page, 'Bash').getByLabel('Input')).toHaveText('cat big.log');
    // The message body scrolls from the keyboard (it takes focus).
    await region(page).getByRole('group', { name: 'Message details' }).focus();
    await expect(region(page).getByRole('group', { name: 'Message details' })).toBeFocused();
  } finally {
    await served.stop();
  }
});

test('the Message region follows both themes', async ({ page }) => {
  const served = await serve(world);
  try {
    await page.setViewportSize({ width: 1400, height: 860 });
    for (const [scheme, bg] of [
      ['light', 'rgb(255, 255, 255)'],
      ['dark', 'rgb(30, 30, 30)'],
    ] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(served.url);
      await expect(region(page)).toContainText('Stop there, thanks');
      const colors = await region(page).evaluate((el) => {
        const s = getComputedStyle(el);
        return { bg: s.backgroundColor, fg: s.color };
      });
      expect(colors.bg, scheme).toBe(bg);
      expect(colors.fg, scheme).not.toBe(colors.bg);
    }
  } finally {
    await served.stop();
  }
});

test('a checkpoint row shows its text on one line cut at the width, not a first word and a hidden file name', async ({
  page,
}) => {
  const own = tempWorld();
  try {
    writeFileSync(join(own.dir, 'a.txt'), '1\n');
    await cli(own, ['message', '--role', 'user', '--text', 'start', '--checkpoint']);
    writeFileSync(join(own.dir, 'a.txt'), '2\n');
    const text = `newFileCreated ${'SECURITY_AND_MODULARITY_REPORT_'.repeat(3)}.md`;
    await cli(own, ['message', '--role', 'tool', '--text', text, '--checkpoint']);
    const served = await serve(own);
    try {
      await page.setViewportSize({ width: 1400, height: 860 });
      await page.goto(served.url);
      const excerpt = row(page, /^tool newFileCreated/).locator('.excerpt');
      await expect(excerpt).toHaveText(text);
      // One line box: clamped instead, the unbreakable name wrapped whole onto a second line that was cut off.
      const lineTops = await excerpt.evaluate((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
      });
      expect(lineTops).toBe(1);
      // Cut at the row's width: the name starts on the line, the rest is elided.
      expect(await excerpt.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    } finally {
      await served.stop();
    }
  } finally {
    own.cleanup();
  }
});

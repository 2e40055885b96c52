/**
 * Find anything (issue 12) through `retrace serve`, by the accessible names of UI.md: the search box narrows the
 * timeline by text and changed file path, "Next match" / "Previous match" move the selection, "All sessions"
 * reaches another session, "Prompts only" / "Changes only" filter the rows, `p` jumps to the next prompt, and a
 * checkpoint's "Label" action adds a label that its row shows and search finds, then removes it.
 */
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, serve, tempWorld, type Served, type TempWorld } from './support/retrace';

let world: TempWorld;
let served: Served;

test.describe.configure({ timeout: 120_000 });

const write = (rel: string, content: string) => {
  mkdirSync(join(world.dir, rel, '..'), { recursive: true });
  writeFileSync(join(world.dir, rel), content);
};
const say = (session: string, role: string, text: string, checkpoint = false) =>
  cli(world, [
    'message',
    '--session',
    session,
    '--role',
    role,
    '--text',
    text,
    ...(checkpoint ? ['--checkpoint'] : []),
  ]);

test.beforeAll(async () => {
  world = tempWorld();
  write('README.md', '# app\n');
  // alpha (older): rows 0..4
  await say('alpha', 'user', 'Set up the parser', true);
  write('src/parser.ts', 'export const parse = 1;\n');
  await say('alpha', 'tool', 'Write', true);
  await say('alpha', 'assistant', 'Parser is ready');
  await say('alpha', 'user', 'Now add tests', true);
  write('test/unit.ts', 'test();\n');
  await say('alpha', 'tool', 'Write tests', true);
  // beta (newer, opened first): rows 0..2; its first checkpoint changes nothing after alpha's last
  await say('beta', 'user', 'Fix the login bug', true);
  write('src/login.ts', 'export const login = 2;\n');
  await say('beta', 'tool', 'Edit', true);
  await say('beta', 'assistant', 'Fixed it');
  served = await serve(world);
});

test.afterAll(async () => {
  await served?.stop();
  world?.cleanup();
});

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });
const rows = (page: Page) => timeline(page).getByRole('listitem');
const current = (page: Page) => timeline(page).locator('[role="listitem"][aria-current="true"]');
const search = (page: Page) => page.getByRole('searchbox', { name: 'Search' });
/** The open session, by its title (its first prompt): the header shows it beside the "Sessions" button. */
const openSession = (page: Page) => page.locator('#current-session');
const TITLES = { alpha: 'Set up the parser', beta: 'Fix the login bug' } as const;
/** Open a session through the Session list, as a user does. */
async function pickSession(page: Page, id: keyof typeof TITLES): Promise<void> {
  await page.getByRole('button', { name: 'Sessions', exact: true }).click();
  await page
    .getByRole('list', { name: 'Session list' })
    .getByRole('listitem')
    .filter({ hasText: TITLES[id] })
    .getByRole('button')
    .click();
  await expect(openSession(page)).toContainText(TITLES[id]);
}

async function open(page: Page): Promise<void> {
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(served.url);
  await expect(openSession(page)).toContainText(TITLES.beta);
  await expect(rows(page)).toHaveCount(3);
}

test('search narrows the timeline by text and path; next/previous match move the selection', async ({ page }) => {
  await open(page);
  await search(page).fill('LOGIN');
  // "Fix the login bug" by its text, "Edit" by the path its step changed (src/login.ts).
  await expect(rows(page)).toHaveCount(2);
  await expect(page.getByText('2 matches')).toBeVisible();
  await expect(current(page)).toContainText('Edit'); // the latest checkpoint stays selected
  await page.getByRole('button', { name: 'Next match' }).click(); // wraps round to the first match
  await expect(current(page)).toContainText('Fix the login bug');
  await page.getByRole('button', { name: 'Next match' }).click();
  await expect(current(page)).toContainText('Edit');
  await page.getByRole('button', { name: 'Previous match' }).click();
  await expect(current(page)).toContainText('Fix the login bug');
  // Keyboard: Enter / Shift+Enter in the box, Esc clears it.
  await search(page).press('Enter');
  await expect(current(page)).toContainText('Edit');
  await search(page).press('Shift+Enter');
  await expect(current(page)).toContainText('Fix the login bug');
  // Moved another way (→), the next match counts from the new selection.
  await page.getByRole('button', { name: 'Next match' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(current(page)).toContainText('Edit');
  await page.getByRole('button', { name: 'Next match' }).click();
  await expect(current(page)).toContainText('Fix the login bug');

  await search(page).fill('login.ts');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Edit');
  await search(page).press('Escape');
  await expect(search(page)).toHaveValue('');
  await expect(rows(page)).toHaveCount(3);

  // `/` goes to the box from anywhere outside a field.
  await page.getByRole('slider', { name: 'Checkpoints' }).focus();
  await page.keyboard.press('/');
  await expect(search(page)).toBeFocused();
});

test('Prompts only and Changes only filter the rows; p jumps to the next prompt', async ({ page }) => {
  await open(page);
  await page.getByRole('checkbox', { name: 'Prompts only' }).check();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Fix the login bug');
  await page.getByRole('checkbox', { name: 'Prompts only' }).uncheck();
  await expect(rows(page)).toHaveCount(3);
  await page.getByRole('checkbox', { name: 'Changes only' }).check();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Edit');
  await page.getByRole('checkbox', { name: 'Changes only' }).uncheck();
  await expect(rows(page)).toHaveCount(3);

  // In alpha, prompts are rows 0 and 3 (both checkpoints): p moves forward, wrapping; Shift+P goes back.
  await pickSession(page, 'alpha');
  await expect(rows(page)).toHaveCount(5);
  await expect(current(page)).toContainText('Write tests');
  await page.getByRole('slider', { name: 'Checkpoints' }).focus();
  await page.keyboard.press('p');
  await expect(current(page)).toContainText('Set up the parser');
  await page.keyboard.press('p');
  await expect(current(page)).toContainText('Now add tests');
  await page.keyboard.press('Shift+P');
  await expect(current(page)).toContainText('Set up the parser');
});

test('All sessions: hits of another session are listed and Next match opens that session at the hit', async ({
  page,
}) => {
  await open(page);
  await search(page).fill('parser');
  await expect(rows(page)).toHaveCount(0); // nothing in beta
  await page.getByRole('checkbox', { name: 'All sessions' }).check();
  const others = page.getByRole('list', { name: 'Other sessions' });
  // alpha: the prompt, the step that wrote src/parser.ts, and the reply.
  await expect(others.getByRole('listitem')).toHaveCount(3);
  await page.getByRole('button', { name: 'Next match' }).click();
  await expect(openSession(page)).toContainText(TITLES.alpha);
  await expect(rows(page)).toHaveCount(3);
  await expect(current(page)).toContainText('Set up the parser');
  await page.getByRole('button', { name: 'Next match' }).click();
  await expect(current(page)).toContainText('Write');

  // Back in beta, picking a listed hit opens alpha at that message (a reply: its checkpoint is the one before it).
  await pickSession(page, 'beta');
  await expect(others.getByRole('listitem')).toHaveCount(3);
  await others.getByRole('button', { name: /Parser is ready/ }).click();
  await expect(openSession(page)).toContainText(TITLES.alpha);
  await expect(current(page)).toContainText('Write');
});

test('Label: add one to a checkpoint (shown in its row, found by search), Esc cancels, then remove it', async ({
  page,
}) => {
  await open(page);
  const edit = rows(page).filter({ hasText: 'Edit' });
  await expect(edit).toHaveAttribute('aria-current', 'true');
  // Keyboard path: from the selected row, Tab reaches its Label action; each row holds one button only.
  await expect(edit.getByRole('button')).toHaveCount(1);
  await edit.getByRole('button').focus();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Label', exact: true })).toBeFocused();
  await page.keyboard.press('Enter');
  const input = page.getByRole('textbox', { name: 'Label text' });
  await expect(input).toBeFocused();
  await input.fill('ignored');
  await input.press('Escape');
  await expect(input).toHaveCount(0);
  await expect(edit).not.toContainText('ignored');

  await page.getByRole('button', { name: 'Label', exact: true }).click();
  await page.getByRole('textbox', { name: 'Label text' }).fill('Login works again');
  await page.getByRole('textbox', { name: 'Label text' }).press('Enter');
  await expect(edit).toContainText('Login works again');
  const labelled = await cli<{ messages: { text: string; label?: string }[] }>(world, ['log', '--session', 'beta']);
  expect(labelled.messages.find((m) => m.text === 'Edit')?.label).toBe('Login works again');

  await search(page).fill('works again');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Login works again');
  await search(page).press('Escape');

  await page.getByRole('button', { name: 'Remove label' }).click();
  await expect(rows(page).filter({ hasText: 'Edit' })).not.toContainText('Login works again');
  const after = await cli<{ messages: { text: string; label?: string }[] }>(world, ['log', '--session', 'beta']);
  expect(after.messages.some((m) => m.label !== undefined)).toBe(false);
});

/// <reference lib="dom" />
/**
 * Sessions in the app (issues 12 and 13) through `retrace serve`, by accessible names (UI.md): the Sessions
 * button and its Session list (agent badges, dates, counts, picking by mouse and keys), the agents' sessions
 * found when a folder opens (Import, Always import), and "Record changes" recording a watch checkpoint. Agents'
 * sessions are synthetic transcripts in a fake home (test/helpers/agentHome.ts), found through each agent's own
 * folder variable as `retrace discover` finds them.
 */
import { expect, test, type Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fillUp, mountTmpfs, unmountTmpfs } from '../test/helpers/fullDisk';
import { agentHomeEnv, writeBrokenGeminiChat, writeClaudeSession, writeGeminiChat } from '../test/helpers/agentHome';
import { cli, serve, tempWorld, type TempWorld } from './support/retrace';

const CLAUDE = 'c1a0de00-0000-4000-8000-00000000e2e1';
const CLAUDE_2 = 'c1a0de00-0000-4000-8000-00000000e2e2';
const GEMINI = '9e3101a0-0000-4000-8000-00000000e2e3';

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });
const sessionsButton = (page: Page) => page.getByRole('button', { name: 'Sessions', exact: true });
const sessionList = (page: Page) => page.getByRole('list', { name: 'Session list' });
const found = (page: Page) => page.getByRole('region', { name: 'Found sessions' });
const currentSession = (page: Page) => page.locator('#current-session');

let world: TempWorld;
let agents: string;
test.beforeEach(() => {
  world = tempWorld();
  agents = mkdtempSync(join(tmpdir(), 'retrace-e2e-agents-'));
  world.env = agentHomeEnv(agents);
  writeFileSync(join(world.dir, 'app.txt'), 'v1\n');
});
test.afterEach(() => {
  world.cleanup();
  rmSync(agents, { recursive: true, force: true });
});

test('the Session list shows each session with its agent, title, date and counts; picked by mouse or keys', async ({
  page,
}) => {
  writeClaudeSession(world.env, world.dir, CLAUDE, 'Add a greeting', 2);
  await cli(world, ['discover', '--import']);
  await cli(world, ['message', '--session', 'by-hand', '--role', 'user', '--text', 'Tidy up by hand']);
  writeFileSync(join(world.dir, 'app.txt'), 'v2\n');
  await cli(world, ['checkpoint', '--session', 'by-hand', '--text', 'Tidied']);
  // The counts the CLI gives are the counts the list shows.
  const listed = await cli<{ id: string; messages: number; checkpoints: number }[]>(world, ['sessions']);
  const claude = listed.find((s) => s.id === CLAUDE)!;
  expect(claude.messages).toBe(4);
  const served = await serve(world);
  try {
    await page.goto(served.url);
    await expect(timeline(page)).toBeVisible();
    // The newest session opens first.
    await expect(currentSession(page)).toContainText('Tidy up by hand');
    await expect(sessionList(page)).toHaveCount(0);

    await sessionsButton(page).click();
    await expect(sessionsButton(page)).toHaveAttribute('aria-expanded', 'true');
    const items = sessionList(page).getByRole('listitem');
    await expect(items).toHaveCount(2);
    // Newest first: the CLI session (recorded now), then the Claude Code one (its transcript is from 2025).
    await expect(items.nth(0)).toContainText('CLI');
    await expect(items.nth(0)).toContainText('Tidy up by hand');
    await expect(items.nth(0)).toContainText('2 messages');
    await expect(items.nth(0)).toContainText('1 checkpoint');
    await expect(items.nth(1).locator('.agent-badge')).toHaveText('Claude Code');
    await expect(items.nth(1)).toContainText('Add a greeting');
    await expect(items.nth(1)).toContainText('4 messages');
    await expect(items.nth(1)).toContainText(`${claude.checkpoints} checkpoint`);
    await expect(items.nth(1)).toContainText('2025');
    // The open session's entry has focus; ArrowDown moves to the next, Enter opens it.
    await expect(items.nth(0).getByRole('button')).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(items.nth(1).getByRole('button')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(sessionList(page)).toHaveCount(0);
    await expect(currentSession(page)).toContainText('Add a greeting');
    await expect(timeline(page)).toContainText('Done: Add a greeting');

    // In the open list, j/k and ←/→ are the list's: the checkpoint stays. Escape closes, focus back on the button.
    const slider = page.getByRole('slider', { name: 'Checkpoints' });
    const at = await slider.inputValue();
    await sessionsButton(page).click();
    await expect(sessionList(page).getByRole('listitem').nth(1).getByRole('button')).toBeFocused();
    await page.keyboard.press('k');
    await page.keyboard.press('ArrowLeft');
    await expect(sessionList(page)).toBeVisible();
    await expect(slider).toHaveValue(at);
    await page.keyboard.press('Escape');
    await expect(sessionList(page)).toHaveCount(0);
    await expect(sessionsButton(page)).toBeFocused();

    // Tab leaves the list (one stop in it) and closes it.
    await sessionsButton(page).click();
    await expect(sessionList(page)).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(sessionList(page)).toHaveCount(0);

    // A click picks one too.
    await sessionsButton(page).click();
    await sessionList(page)
      .getByRole('button', { name: /Tidy up by hand/ })
      .click();
    await expect(currentSession(page)).toContainText('Tidy up by hand');
    await expect(sessionsButton(page)).toBeFocused();
  } finally {
    await served.stop();
  }
});

test('found sessions are offered when the folder opens; Import brings one in; Always import needs no click', async ({
  page,
}) => {
  writeClaudeSession(world.env, world.dir, CLAUDE, 'Add a greeting', 1);
  writeGeminiChat(world.env, world.dir, GEMINI, 'Bump the version', { path: 'app.txt', before: 'v1\n', after: 'v2\n' });
  const served = await serve(world);
  try {
    await page.goto(served.url);
    await expect(found(page)).toBeVisible();
    const rows = found(page).getByRole('listitem');
    await expect(rows).toHaveCount(2);
    const gemini = rows.filter({ hasText: 'Bump the version' });
    await expect(gemini.locator('.agent-badge')).toHaveText('Gemini');
    await expect(rows.filter({ hasText: 'Add a greeting' }).locator('.agent-badge')).toHaveText('Claude Code');
    await gemini.getByRole('button', { name: 'Import', exact: true }).click();

    // Imported and opened: its edit is a checkpoint of the timeline; only the other one is still offered.
    await expect(currentSession(page)).toContainText('Bump the version');
    await expect(timeline(page).getByRole('listitem').filter({ hasText: 'Writing app.txt' })).toBeVisible();
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText('Add a greeting');

    await found(page).getByRole('checkbox', { name: 'Always import' }).check();
    await expect(found(page).getByRole('checkbox', { name: 'Always import' })).toBeChecked();

    // Next time the folder opens, what is found is imported without asking.
    writeClaudeSession(world.env, world.dir, CLAUDE_2, 'Write the docs', 1);
    await page.reload();
    await expect(timeline(page)).toBeVisible();
    await sessionsButton(page).click();
    await expect(sessionList(page).getByRole('listitem')).toHaveCount(3);
    await expect(sessionList(page)).toContainText('Write the docs');
    await expect(sessionList(page)).toContainText('Add a greeting');
    await page.keyboard.press('Escape');
    await expect(found(page)).toHaveCount(0);
  } finally {
    await served.stop();
  }
});

test('Import all: what can be imported is; a transcript that cannot is the alert with its code and stays offered', async ({
  page,
}) => {
  writeClaudeSession(world.env, world.dir, CLAUDE, 'Add a greeting', 1);
  writeBrokenGeminiChat(world.env, world.dir, GEMINI);
  const served = await serve(world);
  try {
    await page.goto(served.url);
    const rows = found(page).getByRole('listitem');
    await expect(rows).toHaveCount(2);
    await found(page).getByRole('button', { name: 'Import all' }).click();
    await expect(page.getByRole('alert')).toContainText('E_IMPORT');
    await expect(page.getByRole('alert')).toContainText('not a Gemini CLI chat');
    await expect(currentSession(page)).toContainText('Add a greeting');
    await expect(rows).toHaveCount(1);
    await expect(rows.locator('.agent-badge')).toHaveText('Gemini');
  } finally {
    await served.stop();
  }
});

test('Record changes on: an edit in the folder becomes a watch checkpoint in the timeline; every window follows', async ({
  page,
  context,
}) => {
  const served = await serve(world);
  try {
    await page.goto(served.url);
    const record = page.getByRole('switch', { name: 'Record changes' });
    await expect(record).toHaveAttribute('aria-checked', 'false');
    await record.click();
    await expect(record).toHaveAttribute('aria-checked', 'true');

    writeFileSync(join(world.dir, 'app.txt'), 'v2 edited while recording\n');
    await expect(timeline(page).getByRole('listitem').filter({ hasText: 'Files changed: app.txt' })).toBeVisible({
      timeout: 20_000,
    });
    await expect(currentSession(page).locator('.agent-badge')).toHaveText('Watch');

    // A second window shows the switch on; turning it off there reaches the first.
    const other = await context.newPage();
    await other.goto(served.url);
    const otherRecord = other.getByRole('switch', { name: 'Record changes' });
    await expect(otherRecord).toHaveAttribute('aria-checked', 'true');
    await otherRecord.click();
    await expect(otherRecord).toHaveAttribute('aria-checked', 'false');
    await expect(record).toHaveAttribute('aria-checked', 'false');
  } finally {
    await served.stop();
  }
});

test('Record changes on a full disk: the alert says why with its code, until a later edit is recorded', async ({
  page,
}) => {
  const why = mountTmpfs(world.home); // the data folder on a small disk of its own
  test.skip(why !== null, why ?? '');
  const served = await serve(world);
  try {
    await page.goto(served.url);
    const record = page.getByRole('switch', { name: 'Record changes' });
    await record.click();
    await expect(record).toHaveAttribute('aria-checked', 'true');
    const failed = page.getByRole('alert', { name: 'Record changes failed' });
    await expect(failed).toHaveCount(0);

    fillUp(join(world.home, 'filler.bin'));
    writeFileSync(join(world.dir, 'data.bin'), randomBytes(64 * 1024));
    await expect(failed).toContainText('E_NO_SPACE', { timeout: 20_000 });
    await expect(failed).toContainText('the disk is full');
    await expect(record).toHaveAttribute('aria-checked', 'true'); // still on: it tries again by itself

    rmSync(join(world.home, 'filler.bin'));
    writeFileSync(join(world.dir, 'app.txt'), 'v2 once there is room\n');
    await expect(
      timeline(page).getByRole('listitem').filter({ hasText: 'Files changed: app.txt, data.bin' }),
    ).toBeVisible({ timeout: 20_000 });
    await expect(failed).toHaveCount(0);
  } finally {
    await served.stop();
    await unmountTmpfs(world.home);
  }
});

test('Record changes left on, opened on a full disk: the alert says it stopped; switched on again, it records', async ({
  page,
}) => {
  const why = mountTmpfs(world.home);
  test.skip(why !== null, why ?? '');
  try {
    const first = await serve(world);
    try {
      await page.goto(first.url);
      await page.getByRole('switch', { name: 'Record changes' }).click();
      await expect(page.getByRole('switch', { name: 'Record changes' })).toHaveAttribute('aria-checked', 'true');
    } finally {
      await first.stop();
    }
    fillUp(join(world.home, 'filler.bin'));
    const served = await serve(world);
    try {
      await page.goto(served.url);
      const record = page.getByRole('switch', { name: 'Record changes' });
      const failed = page.getByRole('alert', { name: 'Record changes failed' });
      await expect(failed).toContainText('Record changes stopped');
      await expect(failed).toContainText('E_NO_SPACE');
      await expect(record).toHaveAttribute('aria-checked', 'false');

      rmSync(join(world.home, 'filler.bin'));
      await record.click();
      await expect(record).toHaveAttribute('aria-checked', 'true');
      await expect(failed).toHaveCount(0);
      writeFileSync(join(world.dir, 'app.txt'), 'v2 recorded again\n');
      await expect(timeline(page).getByRole('listitem').filter({ hasText: 'Files changed: app.txt' })).toBeVisible({
        timeout: 20_000,
      });
    } finally {
      await served.stop();
    }
  } finally {
    await unmountTmpfs(world.home);
  }
});

/**
 * A Claude Code transcript imported through the CLI: the long timeline, and a conversation restore that
 * offers the forked transcript's `claude --resume` command in the banner.
 */
import { expect, test } from '@playwright/test';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, REPO, serve, tempWorld } from './support/retrace';

// A real transcript from ../shared/fixtures (never copied into the project); skipped when that folder is absent.
const FIXTURE = join(REPO, '../shared/fixtures/claude-code/02-cclog-v2.0.55-file-history');

test('an imported Claude Code session: restore the conversation, then continue it with claude --resume', async ({
  page,
}) => {
  test.skip(!existsSync(FIXTURE), 'skipped: ../shared/fixtures absent');
  const world = tempWorld();
  // The fork is written beside the transcript and under CLAUDE_CONFIG_DIR: both temporary, never the fixture.
  const claude = mkdtempSync(join(tmpdir(), 'retrace-e2e-claude-'));
  world.env.CLAUDE_CONFIG_DIR = claude;
  cpSync(FIXTURE, join(claude, 'transcripts'), { recursive: true });
  try {
    const imported = await cli<{ session: string; messages: number; checkpoints: number }>(world, [
      'import',
      'claude-code',
      join(claude, 'transcripts', 'a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl'),
    ]);
    const served = await serve(world);
    try {
      await page.setViewportSize({ width: 1400, height: 860 });
      await page.goto(served.url);
      await expect(page.getByText(`${imported.messages} messages`)).toBeVisible();
      const slider = page.getByRole('slider', { name: 'Checkpoints' });
      await expect(slider).toHaveValue(String(imported.checkpoints - 1));
      await slider.focus();
      await page.keyboard.press('Home');
      await expect(slider).toHaveValue('0');
      await page.getByRole('button', { name: 'Restore conversation' }).click();
      const banner = page.getByRole('status');
      await expect(banner).toContainText('Continue in Claude Code: claude --resume');
      await expect(banner.getByRole('button', { name: 'Copy command' })).toBeVisible();
      await banner.getByRole('button', { name: 'Undo restore' }).click();
      await expect(page.getByText(`${imported.messages} messages`)).toBeVisible();
    } finally {
      await served.stop();
    }
  } finally {
    world.cleanup();
    rmSync(claude, { recursive: true, force: true });
  }
});

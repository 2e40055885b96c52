/// <reference lib="dom" />
/**
 * A session pulled from a git remote (issue 14 item 4) shows in the app with its diffs, read-only, saying who
 * recorded it. Alice records and pushes to a bare repository with the real CLI; Bob pulls and opens
 * `retrace serve` in Chromium; found by accessible names.
 */
import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, serve, tempWorld, type Served, type TempWorld } from './support/retrace';

let alice: TempWorld;
let bob: TempWorld;
let bare: string;
let served: Served;

const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

test.beforeAll(async () => {
  alice = tempWorld();
  bob = tempWorld();
  bare = mkdtempSync(join(tmpdir(), 'retrace-e2e-bare-'));
  git(bare, ['init', '-q', '--bare']);
  git(alice.dir, ['init', '-q']);
  git(alice.dir, ['config', 'user.name', 'Alice Example']);
  git(alice.dir, ['config', 'user.email', 'alice@example.com']);
  writeFileSync(join(alice.dir, 'app.ts'), 'export const v = 1;\n');
  await cli(alice, ['message', '--role', 'user', '--text', 'Bump v', '--checkpoint', '--session', 'shared']);
  writeFileSync(join(alice.dir, 'app.ts'), 'export const v = 2;\n');
  await cli(alice, ['message', '--role', 'tool', '--text', 'Edit app.ts', '--checkpoint', '--session', 'shared']);
  await cli(alice, ['push', bare]);
  await cli(bob, ['pull', bare]);
  served = await serve(bob);
});

test.afterAll(async () => {
  await served?.stop();
  alice?.cleanup();
  bob?.cleanup();
  rmSync(bare, { recursive: true, force: true });
});

test('a pulled session shows its steps and diffs, read-only, with who recorded it', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(served.url);
  await expect(page.getByRole('list', { name: 'Timeline' })).toContainText('Edit app.ts');
  await expect(page.getByRole('note')).toContainText('Read-only: recorded by Alice Example <alice@example.com>');
  await expect(page.getByRole('list', { name: 'Changed files' })).toContainText('app.ts');
  await expect(page.locator('.monaco-diff-editor')).toBeVisible();
});

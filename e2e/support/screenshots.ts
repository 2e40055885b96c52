/**
 * Screenshots the specs take on the way. `npm test` must leave the work tree clean, so they go to
 * test-results/screenshots (ignored) unless RETRACE_SCREENSHOTS=1 — `npm run screenshots` — which writes the
 * README's pictures in docs/screenshots.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DIR = join(REPO, process.env.RETRACE_SCREENSHOTS === '1' ? 'docs/screenshots' : 'test-results/screenshots');

export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  await page.screenshot({ path: join(DIR, `${name}.png`) });
}

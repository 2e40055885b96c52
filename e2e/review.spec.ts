/// <reference lib="dom" />
/**
 * Review defects of issue 12 (keys, errors, first checkpoints, big steps, accessibility), each through
 * `retrace serve` on a session recorded with the real CLI, found by accessible names (UI.md).
 */
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, serve, tempWorld, type TempWorld } from './support/retrace';

function write(world: TempWorld, rel: string, content: string): void {
  mkdirSync(join(world.dir, rel, '..'), { recursive: true });
  writeFileSync(join(world.dir, rel), content);
}

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });
const selectedItem = (page: Page) => timeline(page).locator('[role="listitem"][aria-current="true"]');
const changedFiles = (page: Page) => page.getByRole('list', { name: 'Changed files' });

/** Long tasks (and gaps between animation frames) from now until `stop()`; installed in the page. */
async function startFrameWatch(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __frames: { longTasks: number[]; gaps: number[]; run: boolean } };
    w.__frames = { longTasks: [], gaps: [], run: true };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (w.__frames.run) w.__frames.longTasks.push(e.duration);
    }).observe({ type: 'longtask' });
    let last = performance.now();
    const tick = (now: number) => {
      w.__frames.gaps.push(now - last);
      last = now;
      if (w.__frames.run) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

async function stopFrameWatch(page: Page): Promise<{ maxLongTask: number; maxFrameGap: number }> {
  return page.evaluate(() => {
    const w = window as unknown as { __frames: { longTasks: number[]; gaps: number[]; run: boolean } };
    w.__frames.run = false;
    return {
      maxLongTask: Math.round(Math.max(0, ...w.__frames.longTasks)),
      maxFrameGap: Math.round(Math.max(0, ...w.__frames.gaps)),
    };
  });
}

test.describe('big steps', () => {
  let world: TempWorld;
  test.beforeAll(async () => {
    world = tempWorld();
    write(world, 'README.md', '# big\n');
    await cli(world, ['message', '--role', 'user', '--text', 'Start']);
    await cli(world, ['checkpoint', '--text', 'First']);
    for (let i = 0; i < 3000; i++) write(world, `gen/d${i % 30}/file-${i}.ts`, `export const v${i} = ${i};\n`);
    await cli(world, ['checkpoint', '--text', 'Generated 3000 files']);
    write(world, 'README.md', '# big\n\nDone.\n');
    await cli(world, ['checkpoint', '--text', 'Touch the README']);
  });
  test.afterAll(() => world?.cleanup());

  test('a 3,000-file step opens with no frame over 100 ms, one tab stop, arrows within the list', async ({
    page,
  }, testInfo) => {
    test.setTimeout(180_000);
    const served = await serve(world);
    try {
      await page.setViewportSize({ width: 1400, height: 860 });
      await page.goto(served.url);
      await expect(selectedItem(page)).toContainText('Touch the README');
      await expect(page.locator('.monaco-diff-editor')).toContainText('Done.');
      // Let the first paint's work settle, then time the step into the big checkpoint and back out.
      await page.waitForTimeout(500);
      await startFrameWatch(page);
      await page.keyboard.press('k');
      await expect(selectedItem(page)).toContainText('Generated 3000 files');
      await expect(page.getByRole('heading', { name: /Changed files/ })).toContainText('3000');
      await expect(page.locator('.monaco-diff-editor')).toContainText('export const');
      await page.waitForTimeout(300);
      const into = await stopFrameWatch(page);
      await startFrameWatch(page);
      await page.keyboard.press('j');
      await expect(selectedItem(page)).toContainText('Touch the README');
      await expect(page.locator('.monaco-diff-editor')).toContainText('Done.');
      await page.waitForTimeout(300);
      const out = await stopFrameWatch(page);
      const result = { into, out };
      console.log(`3,000-file step, frames (ms): ${JSON.stringify(result)}`);
      testInfo.annotations.push({ type: 'big-step-frames-ms', description: JSON.stringify(result) });
      expect(Math.max(into.maxLongTask, out.maxLongTask)).toBeLessThanOrEqual(100);
    } finally {
      await served.stop();
    }
  });
});

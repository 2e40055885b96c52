/**
 * `retrace move FROM [TO]`: a project folder moved or renamed takes its sessions, checkpoints and restores along.
 * Real folders renamed with rename(2), the built CLI, real git.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, errorCode, runCli, tempDir, tempHome } from '../helpers';

afterAll(cleanupTempDirs);

/** A project with two checkpoints and a restore, then renamed: its old path gone, the new one opened once. */
async function renamedProject(): Promise<{ home: string; from: string; to: string; first: string }> {
  const home = tempHome();
  const parent = tempDir('retrace-move-');
  const from = join(parent, 'app');
  mkdirSync(from);
  writeFileSync(join(from, 'a.txt'), 'one\n');
  const first = (await cliJson<{ hash: string }>(['checkpoint'], { home, cwd: from })).hash;
  writeFileSync(join(from, 'a.txt'), 'two\n');
  await cliJson(['checkpoint'], { home, cwd: from });
  await cliJson(['restore', first, '--code'], { home, cwd: from });
  const to = join(parent, 'app-renamed');
  renameSync(from, to);
  // Opened at its new path before the move (as the app would): a data folder is made for it in passing.
  expect(await cliJson<{ sessions: number }>(['status'], { home, cwd: to })).toMatchObject({ sessions: 0 });
  return { home, from, to, first };
}

describe('retrace move', () => {
  it('the history of a renamed folder goes with it: sessions, checkpoints, restores, undo', async () => {
    const { home, from, to, first } = await renamedProject();
    const gone = await runCli(['status', '--cwd', from, '--json'], { home });
    expect(errorCode(gone)).toBe('E_NOT_FOUND');
    expect(gone.stderr).toContain(`retrace move ${from} NEW`);

    expect(await cliJson(['move', from], { home, cwd: to })).toEqual({ from, to, sessions: 1 });
    const status = await cliJson<{ sessions: number; checkpoints: number; lastRestore: unknown }>(['status'], {
      home,
      cwd: to,
    });
    expect(status).toMatchObject({ sessions: 1, checkpoints: 2 });
    expect(status.lastRestore).toBeTruthy();
    // The last restore is undone at the new path, and a checkpoint restores there.
    await cliJson(['undo'], { home, cwd: to });
    writeFileSync(join(to, 'a.txt'), 'three\n');
    await cliJson(['restore', first, '--code'], { home, cwd: to });
    expect((await cliJson<{ files: unknown[] }>(['diff', first], { home, cwd: to })).files).toEqual([]);
    // One data folder: the old path's is gone, and with it the hint that it is kept.
    expect(readdirSync(join(home, 'workspaces'))).toHaveLength(1);
    expect((await runCli(['status', '--cwd', from], { home })).stderr).not.toContain('kept');
  });

  it('bad input changes nothing: FROM still there, FROM never tracked, TO with sessions or restores, TO missing', async () => {
    const { home, from, to } = await renamedProject();
    const before = readdirSync(join(home, 'workspaces')).sort();
    const still = await runCli(['move', to, from, '--json'], { home });
    expect([still.code, errorCode(still)]).toEqual([1, 'E_INVALID_INPUT']);
    const never = await runCli(['move', join(tempDir(), 'never'), to, '--json'], { home });
    expect([never.code, errorCode(never)]).toEqual([1, 'E_NOT_FOUND']);
    const busy = tempDir('retrace-move-busy-');
    await cliJson(['checkpoint'], { home, cwd: busy });
    const taken = await runCli(['move', from, busy, '--json'], { home });
    expect([taken.code, errorCode(taken)]).toEqual([1, 'E_INVALID_INPUT']);
    const missing = await runCli(['move', from, join(tempDir(), 'nope'), '--json'], { home });
    expect([missing.code, errorCode(missing)]).toEqual([1, 'E_NOT_FOUND']);
    // A folder whose sessions were forgotten but whose restores' safety checkpoints are kept: not replaced either.
    const restored = tempDir('retrace-move-restored-');
    writeFileSync(join(restored, 'f.txt'), '1\n');
    const c = await cliJson<{ hash: string; session: string }>(['checkpoint'], { home, cwd: restored });
    writeFileSync(join(restored, 'f.txt'), '2\n');
    await cliJson(['restore', c.hash, '--code'], { home, cwd: restored });
    await cliJson(['forget', c.session, '--force'], { home, cwd: restored });
    const kept = await runCli(['move', from, restored, '--json'], { home });
    expect([kept.code, errorCode(kept)]).toEqual([1, 'E_INVALID_INPUT']);
    expect(kept.stdout).toContain('restores of its own');
    // Every data folder as it was (plus busy's and restored's), none set aside and left behind.
    const after = readdirSync(join(home, 'workspaces')).sort();
    expect(after.filter((d) => !before.includes(d))).toHaveLength(2);
    expect(after.some((d) => d.includes('.replaced-'))).toBe(false);
    expect((await cliJson<{ sessions: number }>(['status'], { home, cwd: busy })).sessions).toBe(1);
    expect(
      existsSync(
        join(
          home,
          'workspaces',
          before.find((d) => d.startsWith('app-'))!,
          'sessions',
        ),
      ),
    ).toBe(true);
  });
});

/**
 * `retrace gc` and `retrace forget` through the CLI (CLI.md "Keeping and sharing"): the JSON shape, usage errors,
 * a saved budget, the session being recorded kept and said so, E_KEPT and --force, `sessions` gaining bytes.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, errorCode, maintenanceSettled, makeWorkspace, runCli, tempHome } from '../helpers';

afterAll(cleanupTempDirs);

interface Gc {
  removed: string[];
  storageBytes: number;
  kept: { session: string; reason: string }[];
  underBudget: boolean;
}

describe('gc and forget from the CLI', () => {
  it('gc keeps the sessions being recorded and says so; forget needs --force for them; sessions show bytes', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'one\n' });
    await cliJson(['checkpoint', '--session', 'one', '--cwd', ws], { home });
    writeFileSync(join(ws, 'a.txt'), 'two\n');
    await cliJson(['checkpoint', '--session', 'two', '--cwd', ws], { home });

    const gc = await cliJson<Gc>(['gc', '--max-bytes', '0', '--keep-days', '0', '--save', '--cwd', ws], { home });
    expect(gc.removed).toEqual([]);
    expect(gc.kept.map((k) => k.session).sort()).toEqual(['one', 'two']);
    expect(gc.kept[0]!.reason).toMatch(/being recorded now/);
    expect(gc.underBudget).toBe(false);
    expect(gc.storageBytes).toBeGreaterThan(0);
    // The saved budget applies to a bare gc.
    expect(await cliJson<Gc>(['gc', '--cwd', ws], { home })).toMatchObject({
      underBudget: false,
      budget: { maxBytes: 0, keepDays: 0 },
    });
    expect((await cliJson<Gc>(['gc', '--max-bytes', 'none', '--cwd', ws], { home })).underBudget).toBe(true);

    const sessions = await cliJson<{ id: string; bytes: number }[]>(['sessions', '--cwd', ws], { home });
    expect(sessions.every((s) => typeof s.bytes === 'number' && s.bytes > 0)).toBe(true);

    const refused = await runCli(['forget', 'two', '--cwd', ws, '--json'], { home });
    expect(refused.code).toBe(1);
    expect(errorCode(refused)).toBe('E_KEPT');
    const forgot = await cliJson<Gc>(['forget', 'two', '--force', '--cwd', ws], { home });
    expect(forgot).toMatchObject({ removed: ['two'] });
    expect(typeof forgot.storageBytes).toBe('number');
    const left = await cliJson<{ id: string }[]>(['sessions', '--cwd', ws], { home });
    expect(left.map((s) => s.id)).toEqual(['one']);

    const unknown = await runCli(['forget', 'two', '--cwd', ws, '--json'], { home });
    expect(errorCode(unknown)).toBe('E_UNKNOWN_SESSION');
    const bad = await runCli(['gc', '--max-bytes', '1e9', '--cwd', ws, '--json'], { home });
    expect(bad.code).toBe(2);
    expect(errorCode(bad)).toBe('E_USAGE');
  });

  it('maintenance says whether it ran, had nothing to do, or found the lock held, and by whom', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'one\n' });
    await cliJson(['checkpoint', '--cwd', ws], { home });
    await maintenanceSettled(home);
    const say = async (...extra: string[]): Promise<string> =>
      (await runCli(['maintenance', ...extra, '--cwd', ws], { home })).stdout.trim();
    expect(await say()).toBe('maintenance: nothing due (--force runs it anyway)');
    expect(await say('--force')).toBe('maintenance done');
    // A live writer (this test process) holds the lock: a forced run does nothing and names it.
    const lock = join(home, 'workspaces', readdirSync(join(home, 'workspaces'))[0]!, 'writer.lock');
    const info = {
      pid: process.pid,
      hostname: hostname(),
      command: 'retrace test',
      startedAt: new Date().toISOString(),
    };
    writeFileSync(lock, JSON.stringify({ ...info, token: 'held' }));
    expect(await say('--force')).toMatch(/^maintenance skipped: .*retrace test/);
    rmSync(lock);
  });
});

/**
 * `retrace gc` and `retrace forget` through the CLI (CLI.md "Keeping and sharing"): the JSON shape, usage errors,
 * a saved budget, the session being recorded kept and said so, E_KEPT and --force, `sessions` gaining bytes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, errorCode, makeWorkspace, runCli, tempHome } from '../helpers';

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
});

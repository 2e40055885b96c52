/** I7: bad input gives a one-line error and a non-zero exit, and leaves nothing half-done. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  cliJson,
  digest,
  maintenanceSettled,
  makeWorkspace,
  runCli,
  tempHome,
  treeManifest,
} from '../helpers';

afterAll(cleanupTempDirs);

/** The data folder's state: file names and bytes (the lock and the shadow repo's files included). */
function dataState(home: string): string {
  return digest(treeManifest(home));
}

describe('I7: failures leave nothing half-done', () => {
  it('failing restores, diffs and undos change neither the workspace nor the data folder', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const home = tempHome();
    const o = { home, cwd: root };
    const c = await cliJson(['checkpoint'], o);
    writeFileSync(join(root, 'a.txt'), 'edited\n');
    await maintenanceSettled(home); // the checkpoint may have started one: its writes are not the failures'
    const ws = digest(treeManifest(root, { mtimes: true }));
    const data = dataState(home);
    const attempts: string[][] = [
      ['restore', 'ffffffffff', '--code'],
      ['restore', c.hash as string, '--code', '--file', '../etc'],
      ['restore', c.hash as string],
      ['undo'],
      ['diff', 'm_nothing'],
      ['log', '--session', 'nope'],
    ];
    for (const a of attempts) {
      const r = await runCli([...a, '--json'], o);
      expect(r.code, a.join(' ')).not.toBe(0);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(digest(treeManifest(root, { mtimes: true })), a.join(' ')).toBe(ws);
      expect(dataState(home), a.join(' ')).toBe(data);
    }
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('edited\n');
  });

  it('a refused folder creates no workspace data at all', async () => {
    const home = tempHome();
    for (const bad of ['/', join(home, 'x-missing'), '/etc/hostname']) {
      const r = await runCli(['checkpoint', '--json', '--cwd', bad], { home });
      expect(r.code).toBe(1);
    }
    expect(existsSync(join(home, 'workspaces')) ? readdirSync(join(home, 'workspaces')) : []).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../test/helpers';
import { setTestHook } from '../engine/faults';
import { resolveWorkspace } from '../engine/workspace';
import { WorkspaceEngine } from '../engine/workspaceEngine';
import { movedHistories, moveWorkspace } from './moveWorkspace';

afterAll(cleanupTempDirs);
afterEach(() => {
  setTestHook('move:after-aside', null);
  delete process.env.RETRACE_TEST_FAULTS;
});

/** A folder with one recorded session, renamed: its old and new paths. */
async function renamed(dataHome: string, name = 'app'): Promise<{ from: string; to: string }> {
  const parent = tempDir('retrace-move-');
  const from = join(parent, name);
  mkdirSync(from);
  writeFileSync(join(from, 'a.txt'), '1\n');
  const engine = new WorkspaceEngine(await resolveWorkspace(from, { dataHome }));
  await engine.record({ session: 's1', role: 'user', text: 'go', checkpoint: true });
  await engine.closeShadow();
  const to = join(parent, `${name}-renamed`);
  renameSync(from, to);
  return { from, to };
}

describe('moveWorkspace', () => {
  it('a data folder made again while the move runs (a window reopening the folder) is set aside too', async () => {
    const dataHome = tempDir('retrace-home-');
    const { from, to } = await renamed(dataHome);
    process.env.RETRACE_TEST_FAULTS = '1';
    let made = 0;
    setTestHook('move:after-aside', (dir) => {
      if (made++ > 0) return;
      mkdirSync(dir);
      writeFileSync(join(dir, 'workspace.json'), '{}\n');
    });
    expect(await moveWorkspace(from, to, { cwd: to, dataHome })).toEqual({ from, to, sessions: 1 });
    expect(made).toBe(2);
    expect(readdirSync(join(dataHome, 'workspaces'))).toHaveLength(1);
  });

  it('removes what a move killed between its two renames set aside, never what a live mover did', async () => {
    const dataHome = tempDir('retrace-home-');
    const { from, to } = await renamed(dataHome);
    const target = await resolveWorkspace(to, { dataHome });
    const gone = spawnSync(process.execPath, ['-e', '']).pid!; // exited and reaped: no process has this pid now
    const left = (pid: number, attempt: number): string => {
      const dir = `${target.dir}.replaced-${pid}-${attempt}`;
      mkdirSync(dir);
      writeFileSync(join(dir, 'workspace.json'), '{}\n');
      return dir;
    };
    const killedMovers = left(gone, 1);
    const liveMovers = left(process.pid, 9); // this process's moves number their attempts 1 to 3
    await moveWorkspace(from, to, { cwd: to, dataHome });
    expect(existsSync(killedMovers)).toBe(false);
    expect(existsSync(liveMovers)).toBe(true);
    expect(existsSync(join(target.dir, 'sessions', 's1.jsonl'))).toBe(true);
  });

  it('movedHistories lists gone folders with sessions, the same name first, not the folder itself', async () => {
    const dataHome = tempDir('retrace-home-');
    const other = await renamed(dataHome, 'other');
    const app = await renamed(dataHome, 'app');
    const here = await resolveWorkspace(app.to, { dataHome });
    expect(movedHistories({ ...here, name: 'app' }).map((h) => h.root)).toEqual([app.from, other.from]);
    await moveWorkspace(app.from, app.to, { cwd: app.to, dataHome });
    expect(movedHistories(here).map((h) => h.root)).toEqual([other.from]);
  });
});

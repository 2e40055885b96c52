import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempDir } from '../../../../test/helpers';
import { resolveWorkspace } from '../../engine/workspace';
import { WorkspaceEngine } from '../../engine/workspaceEngine';
import { resolveSessionWorkspace } from './sessionWorkspace';

afterAll(cleanupTempDirs);

async function begin(root: string, dataHome: string, session: string): Promise<void> {
  const ws = await resolveWorkspace(root, { dataHome });
  await new WorkspaceEngine(ws).record({ session, role: 'user', text: 'go', checkpoint: true });
}

describe('resolveSessionWorkspace', () => {
  it("a session's first call makes the call's folder its workspace", async () => {
    const dataHome = tempDir('retrace-home-');
    const root = makeWorkspace({ 'web/page.js': '1\n' });
    const ws = await resolveSessionWorkspace(join(root, 'web'), 'sess-1', { dataHome });
    expect(ws.root).toBe(join(root, 'web'));
  });

  it('a later call from a folder below the one the session began in goes on there, and makes no workspace below', async () => {
    const dataHome = tempDir('retrace-home-');
    const root = makeWorkspace({ 'web/src/page.js': '1\n' });
    await begin(root, dataHome, 'sess-1');
    const before = readdirSync(join(dataHome, 'workspaces'));
    const ws = await resolveSessionWorkspace(join(root, 'web', 'src'), 'sess-1', { dataHome });
    expect(ws.root).toBe(root);
    expect(readdirSync(join(dataHome, 'workspaces'))).toEqual(before);
    // Another session from the same folder is that folder's own.
    expect((await resolveSessionWorkspace(join(root, 'web'), 'sess-2', { dataHome })).root).toBe(join(root, 'web'));
  });

  it('the nearest folder holding the session wins; a path through a symlink counts as its real folder', async () => {
    const dataHome = tempDir('retrace-home-');
    const root = makeWorkspace({ 'pkg/lib/a.js': '1\n' });
    await begin(root, dataHome, 'sess-1');
    await begin(join(root, 'pkg'), dataHome, 'sess-1'); // the same id in a nested folder, begun there
    expect((await resolveSessionWorkspace(join(root, 'pkg', 'lib'), 'sess-1', { dataHome })).root).toBe(
      join(root, 'pkg'),
    );
    const elsewhere = tempDir('retrace-links-');
    symlinkSync(join(root, 'pkg', 'lib'), join(elsewhere, 'lib'));
    expect((await resolveSessionWorkspace(join(elsewhere, 'lib'), 'sess-1', { dataHome })).root).toBe(
      join(root, 'pkg'),
    );
  });

  it('bad input is reported as resolveWorkspace reports it, nothing written', async () => {
    const dataHome = tempDir('retrace-home-');
    const missing = join(tempDir(), 'nope');
    await expect(resolveSessionWorkspace(missing, 'sess-1', { dataHome })).rejects.toMatchObject({
      code: 'E_NOT_FOUND',
    });
    expect(existsSync(join(dataHome, 'workspaces'))).toBe(false);
  });
});

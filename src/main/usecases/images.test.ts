import { chmodSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../../test/helpers';
import { solidPng } from '../../../test/helpers/png';
import { resolveWorkspace } from '../engine/workspace';
import { WorkspaceEngine } from '../engine/workspaceEngine';
import { createService } from '../service';
import { runsOnOpen } from './openInEditor';

afterAll(cleanupTempDirs);

async function setup(opts: { openPath?: (p: string) => Promise<string> } = {}) {
  const home = tempHome();
  const red = solidPng(3, [255, 0, 0, 255]);
  const root = makeWorkspace({ 'pic.png': red, 'renamed.txt': red, 'blob.bin': Buffer.from([0, 1, 2, 0]) });
  const service = createService({ host: opts.openPath ? 'electron' : 'serve', dataHome: home, watch: false, ...opts });
  const opened = await service.dispatch('openWorkspace', { path: root });
  if (!opened.ok) throw new Error(opened.error.message);
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
  await engine.record({ session: 's', role: 'user', text: 'draw' });
  const c1 = (await engine.checkpoint({ session: 's' })).hash;
  return { root, service, workspace: opened.value.id, engine, c1, red };
}

describe('fileImages', () => {
  it('sends both sides of a changed PNG as base64 with the sniffed type and size', async () => {
    const { root, service, workspace, engine, c1, red } = await setup();
    const blue = solidPng(5, [0, 0, 255, 255]);
    writeFileSync(join(root, 'pic.png'), blue);
    const c2 = (await engine.checkpoint({ session: 's' })).hash;
    const r = await service.dispatch('fileImages', { workspace, from: c1, to: c2, path: 'pic.png' });
    expect(r).toEqual({
      ok: true,
      value: {
        path: 'pic.png',
        before: { mime: 'image/png', size: red.length, base64: red.toString('base64') },
        after: { mime: 'image/png', size: blue.length, base64: blue.toString('base64') },
      },
    });
    // The files as they are now, and an added file (no "before").
    const now = await service.dispatch('fileImages', { workspace, from: null, to: 'working', path: 'pic.png' });
    expect(now).toMatchObject({ ok: true, value: { before: null, after: { mime: 'image/png', size: blue.length } } });
    await service.close();
  });

  it('sniffs the bytes, not the name: a PNG named .txt is a PNG, a .bin of zeros is no image', async () => {
    const { service, workspace, c1 } = await setup();
    const png = await service.dispatch('fileImages', { workspace, from: null, to: c1, path: 'renamed.txt' });
    expect(png).toMatchObject({ ok: true, value: { after: { mime: 'image/png' } } });
    const bin = await service.dispatch('fileImages', { workspace, from: null, to: c1, path: 'blob.bin' });
    expect(bin).toEqual({ ok: true, value: { path: 'blob.bin', before: null, after: { mime: null, size: 4 } } });
    await service.close();
  });

  it('refuses paths out of the folder', async () => {
    const { service, workspace, c1 } = await setup();
    const r = await service.dispatch('fileImages', { workspace, from: null, to: c1, path: '../x.png' });
    expect(r).toMatchObject({ ok: false, error: { code: 'E_PATH_OUTSIDE_WORKSPACE' } });
    await service.close();
  });
});

describe('openInEditor', () => {
  it('is E_UNSUPPORTED under serve (no desktop to open with)', async () => {
    const { service, workspace } = await setup();
    const r = await service.dispatch('openInEditor', { workspace, path: 'pic.png' });
    expect(r).toMatchObject({ ok: false, error: { code: 'E_UNSUPPORTED' } });
    await service.close();
  });

  it('hands the absolute path of a workspace file to the desktop, and never a program', async () => {
    const opened: string[] = [];
    const { root, service, workspace } = await setup({ openPath: async (p) => (opened.push(p), '') });
    expect(await service.dispatch('openInEditor', { workspace, path: 'pic.png' })).toEqual({ ok: true, value: null });
    expect(opened).toEqual([join(root, 'pic.png')]);
    writeFileSync(join(root, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(root, 'run.sh'), 0o755);
    expect(await service.dispatch('openInEditor', { workspace, path: 'run.sh' })).toMatchObject({
      ok: false,
      error: { code: 'E_UNSUPPORTED' },
    });
    expect(await service.dispatch('openInEditor', { workspace, path: 'gone.txt' })).toMatchObject({
      ok: false,
      error: { code: 'E_INVALID_INPUT' },
    });
    // Never a path out of the folder, whichever way it is spelled.
    symlinkSync(tmpdir(), join(root, 'out-link'));
    for (const bad of ['../x.txt', '/etc/passwd', 'out-link/x.txt']) {
      const r = await service.dispatch('openInEditor', { workspace, path: bad });
      expect(r.ok).toBe(false);
    }
    expect(opened).toHaveLength(1);
    await service.close();
  });

  it('knows what a desktop would run: executables, launchers, and on Windows its script types', () => {
    expect(runsOnOpen('a.ts', 0o644, 'linux')).toBe(false);
    expect(runsOnOpen('a.js', 0o644, 'linux')).toBe(false);
    expect(runsOnOpen('tool', 0o755, 'darwin')).toBe(true);
    expect(runsOnOpen('x.desktop', 0o644, 'linux')).toBe(true);
    expect(runsOnOpen('x.command', 0o644, 'darwin')).toBe(true);
    expect(runsOnOpen('a.js', 0o644, 'win32')).toBe(true);
    expect(runsOnOpen('setup.EXE', 0o644, 'win32')).toBe(true);
    expect(runsOnOpen('notes.md', 0o644, 'win32')).toBe(false);
  });
});

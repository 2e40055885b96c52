/** The service's `blame` method: the same answer as `retrace blame`, its errors as Results, paths checked. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../test/helpers';
import { resolveWorkspace } from './engine/workspace';
import { WorkspaceEngine } from './engine/workspaceEngine';
import { createService } from './service';

afterAll(cleanupTempDirs);

describe('service blame', () => {
  it('answers per line with step and origin; refuses binaries, missing files and paths outside', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'a.txt': 'one\ntwo\n', 'bin.dat': Buffer.from([0, 1, 2, 0]) });
    const service = createService({ host: 'serve', dataHome: home, watch: false });
    const opened = await service.dispatch('openWorkspace', { path: root });
    if (!opened.ok) throw new Error(opened.error.message);
    const workspace = opened.value.id;
    const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    await engine.record({ session: 's', role: 'user', text: 'start', checkpoint: true });
    writeFileSync(join(root, 'a.txt'), 'one\nTWO\n');
    const step = await engine.record({ session: 's', role: 'assistant', text: 'edit', checkpoint: true });

    const r = await service.dispatch('blame', { workspace, path: 'a.txt' });
    expect(r).toEqual({
      ok: true,
      value: {
        path: 'a.txt',
        lines: [
          { line: 1, hash: null, message: null, session: null, agent: null, role: null, origin: 'baseline' },
          {
            line: 2,
            hash: step.hash,
            message: step.message,
            session: 's',
            agent: 'cli',
            role: 'assistant',
            origin: 'agent',
          },
        ],
      },
    });
    expect(await service.dispatch('blame', { workspace, path: 'bin.dat' })).toMatchObject({
      ok: false,
      error: { code: 'E_BINARY' },
    });
    expect(await service.dispatch('blame', { workspace, path: 'gone.txt' })).toMatchObject({
      ok: false,
      error: { code: 'E_NOT_FOUND' },
    });
    expect(await service.dispatch('blame', { workspace, path: '../x' })).toMatchObject({
      ok: false,
      error: { code: 'E_PATH_OUTSIDE_WORKSPACE' },
    });
    await service.close();
  });
});

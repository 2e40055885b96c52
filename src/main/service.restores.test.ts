/** The service side of I14: undo by id over the contract, the ledger as `restores`, and a restore event for every window. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../test/helpers';
import type { RetraceEvent } from '../shared/model';
import { resolveWorkspace } from './engine/workspace';
import { WorkspaceEngine } from './engine/workspaceEngine';
import { createService } from './service';

afterAll(cleanupTempDirs);

describe('service: restores and undo by id', () => {
  it('undo names its restore; restores lists the ledger; a restore from elsewhere reaches subscribers', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    const service = createService({ host: 'serve', dataHome: home });
    const opened = await service.dispatch('openWorkspace', { path: root });
    if (!opened.ok) throw new Error(opened.error.message);
    const workspace = opened.value.id;
    // Another process (the terminal) writing the same workspace.
    const terminal = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    const c1 = await terminal.checkpoint({ session: 's' });
    writeFileSync(join(root, 'a.txt'), 'a2\n');
    writeFileSync(join(root, 'b.txt'), 'b2\n');
    await terminal.checkpoint({ session: 's' });

    const events: RetraceEvent[] = [];
    service.subscribe((e) => events.push(e));
    const mine = await service.dispatch('restore', { workspace, target: c1.hash!, mode: 'code', paths: ['a.txt'] });
    if (!mine.ok) throw new Error(mine.error.message);
    const theirs = await terminal.restore({ target: c1.hash!, mode: 'code', paths: ['b.txt'] });
    await expect
      .poll(() => events.some((e) => e.type === 'restored' && e.restore === theirs.restore), { timeout: 5000 })
      .toBe(true);

    const undo = await service.dispatch('undo', { workspace, restore: mine.value.restore });
    expect(undo).toMatchObject({ ok: true, value: { undone: mine.value.restore, changed: ['a.txt'] } });
    expect(events.filter((e) => e.type === 'restored').length).toBeGreaterThanOrEqual(3);

    const list = await service.dispatch('restores', { workspace });
    if (!list.ok) throw new Error(list.error.message);
    expect(list.value.map((e) => [e.restore, e.mode, e.undone, e.undoable])).toEqual([
      [undo.ok && undo.value.restore, 'undo', false, true],
      [theirs.restore, 'code', false, true],
      [mine.value.restore, 'code', true, false],
    ]);
    expect(await service.dispatch('undo', { workspace, restore: 'r_nope' })).toMatchObject({
      ok: false,
      error: { code: 'E_UNKNOWN_RESTORE' },
    });
    expect(await service.dispatch('undo', { workspace, restore: '../x' })).toMatchObject({
      ok: false,
      error: { code: 'E_INVALID_INPUT' },
    });
    await service.close();
  });
});

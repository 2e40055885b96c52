/** The app's side of issue 14 item 5 over the contract: storage per session, the budget, forget, gc, and their events. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../test/helpers';
import type { RetraceEvent } from '../shared/model';
import { resolveWorkspace } from './engine/workspace';
import { WorkspaceEngine } from './engine/workspaceEngine';
import { createService } from './service';

afterAll(cleanupTempDirs);

describe('service: storage', () => {
  it('reports storage per session, saves a budget, forgets a session (forced when kept) and says so to windows', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const service = createService({ host: 'serve', dataHome: home });
    const opened = await service.dispatch('openWorkspace', { path: root });
    if (!opened.ok) throw new Error(opened.error.message);
    const workspace = opened.value.id;
    const terminal = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    await terminal.checkpoint({ session: 'one' });
    writeFileSync(join(root, 'b.txt'), 'b\n');
    await terminal.checkpoint({ session: 'two' });

    const report = await service.dispatch('storage', { workspace });
    if (!report.ok) throw new Error(report.error.message);
    expect(report.value.sessions.map((s) => s.id)).toEqual(['one', 'two']);
    expect(report.value.sessions.every((s) => s.bytes > 0 && s.kept !== null)).toBe(true);
    expect(report.value.budget).toEqual({ maxBytes: null, keepDays: null });

    expect(await service.dispatch('setStorageBudget', { workspace, maxBytes: 1_000_000, keepDays: 7 })).toEqual({
      ok: true,
      value: { maxBytes: 1_000_000, keepDays: 7 },
    });
    expect(await service.dispatch('setStorageBudget', { workspace, maxBytes: -1, keepDays: null })).toMatchObject({
      ok: false,
    });
    const again = await service.dispatch('storage', { workspace });
    expect(again.ok && again.value.budget).toEqual({ maxBytes: 1_000_000, keepDays: 7 });

    const events: RetraceEvent[] = [];
    service.subscribe((e) => events.push(e));
    expect(await service.dispatch('forget', { workspace, session: 'one' })).toMatchObject({
      ok: false,
      error: { code: 'E_KEPT' },
    });
    expect(await service.dispatch('forget', { workspace, session: 'one', force: true })).toMatchObject({
      ok: true,
      value: { removed: ['one'] },
    });
    expect(events).toContainEqual({ type: 'sessions-changed', workspace });
    const gc = await service.dispatch('gc', { workspace });
    expect(gc).toMatchObject({ ok: true, value: { removed: [], budget: { maxBytes: 1_000_000, keepDays: 7 } } });
    const listed = await service.dispatch('listSessions', { workspace });
    expect(listed.ok && listed.value.map((s) => s.id)).toEqual(['two']);
    await service.close();
  });
});

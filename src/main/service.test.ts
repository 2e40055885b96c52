import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempDir, tempHome } from '../../test/helpers';
import type { RetraceEvent } from '../shared/model';
import { resolveWorkspace } from './engine/workspace';
import { WorkspaceEngine } from './engine/workspaceEngine';
import { createService } from './service';

afterAll(cleanupTempDirs);

async function setup() {
  const home = tempHome();
  const root = makeWorkspace({ 'a.txt': 'one\n', 'bin.dat': Buffer.from([0, 1, 2, 0]) });
  const outside = tempDir();
  writeFileSync(join(outside, 'secret.txt'), 'secret\n');
  symlinkSync(outside, join(root, 'out-link'));
  const service = createService({ host: 'serve', dataHome: home });
  const opened = await service.dispatch('openWorkspace', { path: root });
  if (!opened.ok) throw new Error(opened.error.message);
  const workspace = opened.value.id;
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
  return { home, root, service, workspace, engine };
}

describe('service', () => {
  it('validates requests: unknown method → E_USAGE, bad shapes and ids → E_INVALID_INPUT, no dialog under serve', async () => {
    const { service, workspace } = await setup();
    expect(await service.dispatch('nope', {})).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
    expect(await service.dispatch('timeline', { workspace })).toMatchObject({
      ok: false,
      error: { code: 'E_INVALID_INPUT' },
    });
    expect(await service.dispatch('listSessions', { workspace: 'x/../y' })).toMatchObject({
      ok: false,
      error: { code: 'E_INVALID_INPUT' },
    });
    expect(await service.dispatch('listSessions', { workspace: 'unknown-id' })).toMatchObject({
      ok: false,
      error: { code: 'E_INVALID_INPUT' },
    });
    expect(await service.dispatch('pickFolder', {})).toMatchObject({ ok: false, error: { code: 'E_UNSUPPORTED' } });
    expect(await service.dispatch('openWorkspace', { path: '/' })).toMatchObject({
      ok: false,
      error: { code: 'E_PROTECTED_DIR' },
    });
    await service.close();
  });

  it('timeline pages, messages, cached diff summaries, file contents, restore + undo, status', async () => {
    const { root, service, workspace, engine } = await setup();
    await engine.record({ session: 's', role: 'user', text: 'hello' });
    const c1 = await engine.checkpoint({ session: 's' });
    writeFileSync(join(root, 'a.txt'), 'two\n');
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(2 * 1024 * 1024 + 1));
    const c2 = await engine.checkpoint({ session: 's' });

    const sessions = await service.dispatch('listSessions', { workspace });
    expect(sessions).toMatchObject({ ok: true, value: [{ id: 's', messages: 3, checkpoints: 2 }] });
    const page = await service.dispatch('timeline', { workspace, session: 's', offset: 1, limit: 1 });
    expect(page).toMatchObject({ ok: true, value: { total: 3, offset: 1, messages: [{ id: c1.message }] } });
    if (!page.ok) return;
    expect(page.value.checkpoints).toEqual([
      { index: 1, messageId: c1.message, hash: c1.hash },
      { index: 2, messageId: c2.message, hash: c2.hash },
    ]);
    expect(await service.dispatch('message', { workspace, session: 's', id: c2.message })).toMatchObject({
      ok: true,
      value: { hash: c2.hash },
    });
    expect(await service.dispatch('message', { workspace, session: 's', id: 'm_x' })).toMatchObject({
      ok: false,
      error: { code: 'E_UNKNOWN_MESSAGE' },
    });

    const d1 = await service.dispatch('diffSummary', { workspace, from: c1.hash, to: c2.hash });
    const d2 = await service.dispatch('diffSummary', { workspace, from: c1.hash, to: c2.hash });
    expect(d1.ok && d2.ok && d1.value === d2.value).toBe(true); // served from the cache
    expect(d1.ok && d1.value.files.map((f) => f.path).sort()).toEqual(['a.txt', 'big.txt']);
    expect(await service.dispatch('diffSummary', { workspace, from: 'f'.repeat(40), to: 'working' })).toMatchObject({
      ok: false,
      error: { code: 'E_UNKNOWN_CHECKPOINT' },
    });

    const text = await service.dispatch('fileContents', { workspace, from: c1.hash, to: 'working', path: 'a.txt' });
    expect(text).toEqual({ ok: true, value: { path: 'a.txt', binary: false, before: 'one\n', after: 'two\n' } });
    expect(
      await service.dispatch('fileContents', { workspace, from: null, to: c2.hash, path: 'bin.dat' }),
    ).toMatchObject({
      ok: true,
      value: { binary: true, before: null, after: null },
    });
    expect(
      await service.dispatch('fileContents', { workspace, from: c1.hash, to: c2.hash, path: 'big.txt' }),
    ).toMatchObject({
      ok: true,
      value: { tooLarge: true, before: null, after: null },
    });
    writeFileSync(join(root, '.env'), 'TOKEN=1\n');
    expect(
      await service.dispatch('fileContents', { workspace, from: c1.hash, to: 'working', path: '.env' }),
    ).toMatchObject({
      ok: true,
      value: { before: null, after: null },
    });
    for (const path of ['/etc/passwd', '../x', 'a/../../x', '..\\x', 'C:\\x', 'out-link/secret.txt']) {
      expect(
        await service.dispatch('fileContents', { workspace, from: c1.hash, to: 'working', path }),
        path,
      ).toMatchObject({
        ok: false,
        error: { code: 'E_PATH_OUTSIDE_WORKSPACE' },
      });
    }

    const events: RetraceEvent[] = [];
    service.subscribe((e) => events.push(e));
    const preview = await service.dispatch('previewRestore', { workspace, target: c1.hash! });
    expect(preview).toMatchObject({ ok: true, value: { dryRun: true } });
    expect(preview.ok && [...preview.value.changed].sort()).toEqual(['a.txt', 'big.txt']);
    const restored = await service.dispatch('restore', { workspace, target: c1.message, mode: 'both' });
    expect(restored).toMatchObject({ ok: true, value: { mode: 'both', hidden: 1 } });
    expect(events.some((e) => e.type === 'restored')).toBe(true);
    expect(
      await service.dispatch('restore', { workspace, target: c1.hash!, mode: 'code', paths: ['../x'] }),
    ).toMatchObject({
      ok: false,
      error: { code: 'E_PATH_OUTSIDE_WORKSPACE' },
    });
    expect(await service.dispatch('undo', { workspace })).toMatchObject({ ok: true });
    expect(await service.dispatch('status', { workspace })).toMatchObject({
      ok: true,
      value: { canUndo: true, sessions: 1, checkpoints: 2 },
    });
    await service.close();
  });

  it('timeline pages leave out the long details; `message` returns the message whole (issue 12)', async () => {
    const { service, workspace, engine } = await setup();
    const toolCalls = [{ id: 't1', name: 'Bash', input: 'npm test', output: '3 passing' }];
    const meta = { tool: 'Bash', model: 'm-1', usage: { input: 3, output: 4 }, thinking: 'Hmm.', toolCalls };
    const { message } = await engine.record({ session: 's', role: 'tool', text: 'Bash npm test', meta });
    const page = await service.dispatch('timeline', { workspace, session: 's', offset: 0, limit: 10 });
    expect(page.ok && page.value.messages[0]!.meta).toEqual({
      tool: 'Bash',
      model: 'm-1',
      usage: { input: 3, output: 4 },
    });
    const full = await service.dispatch('message', { workspace, session: 's', id: message });
    expect(full.ok && full.value.meta).toEqual(meta);
    await service.close();
  });

  it("timeline anchor 'latest-checkpoint': the page that holds the latest checkpoint, else the last page", async () => {
    const { root, service, workspace, engine } = await setup();
    const texts = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6'];
    for (const [i, text] of texts.entries()) {
      if (i === 1 || i === 4) writeFileSync(join(root, 'a.txt'), `${text}\n`);
      await engine.record({ session: 's', role: 'user', text, checkpoint: i === 1 || i === 4 });
      await engine.record({ session: 'plain', role: 'user', text });
    }
    const ask = (session: string, extra: object) =>
      service.dispatch('timeline', { workspace, session, limit: 3, ...extra });
    // Rows 0..6, latest checkpoint at row 4: the page of rows 3..5, exactly as asked for by its offset.
    const anchored = await ask('s', { offset: 0, anchor: 'latest-checkpoint' });
    expect(anchored.ok && anchored.value.offset).toBe(3);
    expect(anchored.ok && anchored.value.messages.map((m) => m.text)).toEqual(['m3', 'm4', 'm5']);
    expect(anchored).toEqual(await ask('s', { offset: 3 }));
    // No checkpoint: the last page (row 6).
    const last = await ask('plain', { offset: 0, anchor: 'latest-checkpoint' });
    expect(last).toEqual(await ask('plain', { offset: 6 }));
    expect(last.ok && last.value.messages.map((m) => m.text)).toEqual(['m6']);
    await service.close();
  });

  it("firstView: the sessions and the newest session's anchored page, as listSessions and timeline answer them", async () => {
    const { root, service, workspace, engine } = await setup();
    const empty = await service.dispatch('firstView', { workspace });
    expect(empty).toEqual({ ok: true, value: { sessions: [], timeline: null } });
    writeFileSync(join(root, 'a.txt'), 'old\n');
    await engine.record({ session: 'older', role: 'user', text: 'o', checkpoint: true, ts: '2026-12-01T10:00:00Z' });
    for (const [i, text] of ['n0', 'n1', 'n2', 'n3', 'n4'].entries()) {
      if (i === 2) writeFileSync(join(root, 'a.txt'), 'new\n');
      const ts = `2026-12-01T11:00:0${i}Z`;
      await engine.record({ session: 'newer', role: 'user', text, checkpoint: i === 2, ts });
    }
    for (const includeHidden of [false, true]) {
      const view = await service.dispatch('firstView', { workspace, includeHidden, limit: 2 });
      const page = await service.dispatch('timeline', {
        workspace,
        session: 'newer',
        includeHidden,
        limit: 2,
        anchor: 'latest-checkpoint',
      });
      const sessions = await service.dispatch('listSessions', { workspace });
      expect(view).toEqual({
        ok: true,
        value: { sessions: sessions.ok && sessions.value, timeline: page.ok && page.value },
      });
      expect(view.ok && view.value.timeline?.messages.map((m) => m.text)).toEqual(['n2', 'n3']);
    }
    expect(await service.dispatch('firstView', { workspace, limit: 0 })).toMatchObject({
      ok: false,
      error: { code: 'E_INVALID_INPUT' },
    });
    await service.close();
  });

  it('init answers the initial folder’s first view when asked, the same as firstView; not when not asked', async () => {
    const { home, root, engine } = await setup();
    writeFileSync(join(root, 'a.txt'), 'changed\n');
    await engine.record({ session: 's', role: 'user', text: 'hello', checkpoint: true });
    await engine.record({ session: 's', role: 'assistant', text: 'done' });
    const service = createService({ host: 'serve', dataHome: home, initialWorkspace: root, watch: false });
    const init = await service.dispatch('init', { firstView: { limit: 1 } });
    if (!init.ok) throw new Error(init.error.message);
    const workspace = init.value.workspace!.id;
    const asked = await service.dispatch('firstView', { workspace, limit: 1 });
    expect(init.value.firstView).toEqual(asked.ok ? asked.value : null);
    expect(init.value.firstView?.timeline?.messages.map((m) => m.text)).toEqual(['hello']);
    const plain = await service.dispatch('init', {});
    expect(plain.ok && plain.value.workspace?.id).toBe(workspace);
    expect(plain.ok && plain.value.firstView).toBeUndefined();
    await service.close();
  });

  it('prepare() reads the initial folder ahead and starts nothing; the window then sees what it would have', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'a.txt': 'one\n' });
    const writer = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    await writer.record({ session: 's', role: 'user', text: 'before', checkpoint: true });
    const firstView = async (service: ReturnType<typeof createService>) => {
      const init = await service.dispatch('init', {});
      const workspace = init.ok ? init.value.workspace!.id : '';
      return {
        sessions: await service.dispatch('listSessions', { workspace }),
        page: await service.dispatch('timeline', { workspace, session: 's', anchor: 'latest-checkpoint' }),
      };
    };
    const prepared = createService({ host: 'serve', dataHome: home, initialWorkspace: root });
    await prepared.prepare();
    // Nothing a window's opening does: the folder is not in the recent list yet.
    expect(await prepared.dispatch('recentWorkspaces', {})).toEqual({ ok: true, value: [] });
    // Written after the read-ahead: the window still sees it.
    await writer.record({ session: 's', role: 'assistant', text: 'after' });
    const seen = await firstView(prepared);
    expect(seen.page.ok && seen.page.value.messages.map((m) => m.text)).toEqual(['before', 'after']);
    expect(await prepared.dispatch('recentWorkspaces', {})).toEqual({ ok: true, value: [root] });
    const plain = createService({ host: 'serve', dataHome: home, initialWorkspace: root, watch: false });
    expect(seen).toEqual(await firstView(plain));
    await Promise.all([prepared.close(), plain.close()]);
    // No initial folder, or one that cannot be opened: nothing to do, nothing thrown.
    await createService({ host: 'serve', dataHome: home }).prepare();
    await createService({ host: 'serve', dataHome: home, initialWorkspace: join(root, 'missing') }).prepare();
  });

  it('pushes messages-appended when another writer appends to a session log', async () => {
    const { service, engine } = await setup();
    await engine.record({ session: 'live', role: 'user', text: 'first' });
    const got = new Promise<RetraceEvent>((resolve) => {
      service.subscribe((e) => {
        if (e.type === 'messages-appended' && e.session === 'live') resolve(e);
      });
    });
    await new Promise((r) => setTimeout(r, 50));
    await engine.record({ session: 'live', role: 'assistant', text: 'second' });
    await expect(got).resolves.toMatchObject({ type: 'messages-appended' });
    await service.close();
  });

  it('finds a workspace opened in an earlier run by its id, and keeps a recent list', async () => {
    const { home, root, workspace } = await setup();
    const again = createService({ host: 'electron', dataHome: home, watch: false });
    expect(await again.dispatch('listSessions', { workspace })).toEqual({ ok: true, value: [] });
    expect(await again.dispatch('recentWorkspaces', {})).toMatchObject({ ok: true, value: [root] });
    mkdirSync(join(home, 'x'));
    const init = await createService({
      host: 'electron',
      dataHome: home,
      initialWorkspace: join(root, 'missing'),
    }).dispatch('init', {});
    expect(init).toMatchObject({ ok: true, value: { workspace: null, openError: { code: 'E_NOT_FOUND' } } });
  });
});

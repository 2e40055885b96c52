/**
 * The service side of issue 13 in the app: the agents' sessions found for a folder (discover), imported one or
 * all through the same use case as `retrace discover --import` (importFound), the folder's settings kept in its
 * data folder, and "Record changes" running the watcher in the service. Real folders, real git, a fake home
 * with synthetic transcripts (test/helpers/agentHome.ts).
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempDir, tempHome } from '../../test/helpers';
import { agentHomeEnv, writeBrokenGeminiChat, writeClaudeSession, writeGeminiChat } from '../../test/helpers/agentHome';
import type { ApiMethod, ApiResults } from '../shared/contract';
import type { FolderSettings, RetraceEvent } from '../shared/model';
import { resolveWorkspace } from './engine/workspace';
import { WorkspaceEngine } from './engine/workspaceEngine';
import { createService, type RetraceService } from './service';

afterAll(cleanupTempDirs);

const CLAUDE = 'c1a0de00-0000-4000-8000-000000000001';
const GEMINI = '9e3101a0-0000-4000-8000-000000000002';

async function call<M extends ApiMethod>(service: RetraceService, method: M, args: unknown): Promise<ApiResults[M]> {
  const r = await service.dispatch(method, args);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

function world() {
  const root = makeWorkspace({ 'app.txt': 'v1\n' });
  const env = agentHomeEnv(tempDir('retrace-agents-'));
  return { root, env, home: tempHome() };
}

describe('service: found sessions', () => {
  it('lists what agents recorded here, imports one, then all, then brings a grown transcript up to date', async () => {
    const { root, env, home } = world();
    const claudeFile = writeClaudeSession(env, root, CLAUDE, 'Add a greeting', 2);
    writeGeminiChat(env, root, GEMINI, 'Bump the version', { path: 'app.txt', before: 'v1\n', after: 'v2\n' });
    // Another folder's session in the same fake home is never offered here.
    writeClaudeSession(env, tempDir('retrace-other-'), 'a0a0a0a0-0000-4000-8000-000000000003', 'Elsewhere');
    const service = createService({ host: 'serve', dataHome: home, env, watch: false });
    const events: RetraceEvent[] = [];
    service.subscribe((e) => events.push(e));
    const { id: workspace } = await call(service, 'openWorkspace', { path: root });

    const found = await call(service, 'discover', { workspace });
    expect(found.map((s) => [s.agent, s.id, s.imported, s.changed]).sort()).toEqual([
      ['claude-code', CLAUDE, false, false],
      ['gemini', GEMINI, false, false],
    ]);
    expect(found.find((s) => s.id === CLAUDE)!.title).toBe('Add a greeting');
    const imported = async (id: string) => (await call(service, 'discover', { workspace })).find((s) => s.id === id)!;

    const one = await call(service, 'importFound', { workspace, session: CLAUDE });
    expect(one.map((r) => [r.id, r.action, r.messages])).toEqual([[CLAUDE, 'imported', 4]]);
    expect((await imported(CLAUDE)).imported).toBe(true);
    expect((await imported(GEMINI)).imported).toBe(false);
    expect(events).toContainEqual({ type: 'sessions-changed', workspace });

    events.length = 0;
    const all = await call(service, 'importFound', { workspace });
    expect(all.map((r) => [r.agent, r.action]).sort()).toEqual([
      ['claude-code', 'unchanged'],
      ['gemini', 'imported'],
    ]);
    expect(all.find((r) => r.id === GEMINI)!.checkpoints).toBeGreaterThanOrEqual(1);
    // Progress: one event before each session, one at the end.
    const progress = events.filter((e) => e.type === 'import-progress');
    expect(progress.map((e) => [e.done, e.total])).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
    expect(progress.at(-1)).toMatchObject({ title: null });

    const sessions = await call(service, 'listSessions', { workspace });
    expect(sessions.map((s) => [s.id, s.agent]).sort()).toEqual([
      [GEMINI, 'gemini'],
      [CLAUDE, 'claude-code'],
    ]);
    const gemini = await call(service, 'timeline', { workspace, session: GEMINI });
    const edit = gemini.checkpoints.at(-1)!;
    const contents = await call(service, 'fileContents', { workspace, from: null, to: edit.hash, path: 'app.txt' });
    expect(contents.after).toBe('v2\n');

    // The Claude Code conversation went on: it is "changed", and importing it again continues the same session.
    writeClaudeSession(env, root, CLAUDE, 'Add a greeting', 3);
    expect(readFileSync(claudeFile, 'utf8').split('\n').length).toBe(7);
    expect(await imported(CLAUDE)).toMatchObject({ imported: true, changed: true });
    const again = await call(service, 'importFound', { workspace });
    expect(again.map((r) => [r.id, r.action]).sort()).toEqual([
      [GEMINI, 'unchanged'],
      [CLAUDE, 'updated'],
    ]);
    const after = await call(service, 'listSessions', { workspace });
    expect(after).toHaveLength(2);
    expect(after.find((s) => s.id === CLAUDE)!.messages).toBe(6);

    expect(await service.dispatch('importFound', { workspace, session: 'not-found-here' })).toMatchObject({
      ok: false,
      error: { code: 'E_UNKNOWN_SESSION' },
    });
    expect(await service.dispatch('importFound', { workspace, session: '../x' })).toMatchObject({
      ok: false,
      error: { code: 'E_INVALID_INPUT' },
    });
    await service.close();
  });

  it('two imports of all at once (two windows) run one after the other: nothing doubled, nothing failed', async () => {
    const { root, env, home } = world();
    writeClaudeSession(env, root, CLAUDE, 'Once', 1);
    const service = createService({ host: 'serve', dataHome: home, env, watch: false });
    const { id: workspace } = await call(service, 'openWorkspace', { path: root });
    const [a, b] = await Promise.all([
      call(service, 'importFound', { workspace }),
      call(service, 'importFound', { workspace }),
    ]);
    expect([...a, ...b].map((r) => r.action).sort()).toEqual(['imported', 'unchanged']);
    expect(await call(service, 'listSessions', { workspace })).toHaveLength(1);
    await service.close();
  });

  it('a transcript that cannot be imported is reported with its code; the others are imported all the same', async () => {
    const { root, env, home } = world();
    writeClaudeSession(env, root, CLAUDE, 'Fine', 1);
    writeBrokenGeminiChat(env, root, GEMINI);
    const service = createService({ host: 'serve', dataHome: home, env, watch: false });
    const { id: workspace } = await call(service, 'openWorkspace', { path: root });
    const results = await call(service, 'importFound', { workspace });
    expect(results.map((r) => [r.id, r.action, r.error?.code]).sort()).toEqual([
      [GEMINI, 'failed', 'E_IMPORT'],
      [CLAUDE, 'imported', undefined],
    ]);
    expect((await call(service, 'discover', { workspace })).find((s) => s.id === GEMINI)!.imported).toBe(false);
    await service.close();
  });

  it('"Always import" is kept per folder in its data folder, private, across restarts', async () => {
    const { root, env, home } = world();
    const first = createService({ host: 'serve', dataHome: home, env, watch: false });
    const { id: workspace } = await call(first, 'openWorkspace', { path: root });
    expect(await call(first, 'folderSettings', { workspace })).toEqual({ alwaysImport: false, recordChanges: false });
    const events: RetraceEvent[] = [];
    first.subscribe((e) => events.push(e));
    expect(await call(first, 'setFolderSettings', { workspace, alwaysImport: true })).toEqual({
      alwaysImport: true,
      recordChanges: false,
    });
    expect(events).toContainEqual({
      type: 'folder-settings',
      workspace,
      settings: { alwaysImport: true, recordChanges: false },
    });
    const file = join(home, 'workspaces', workspace, 'app-settings.json');
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    await first.close();

    const second = createService({ host: 'serve', dataHome: home, env, watch: false });
    await call(second, 'openWorkspace', { path: root });
    expect(await call(second, 'folderSettings', { workspace })).toMatchObject({ alwaysImport: true });
    // Another folder keeps its own.
    const other = await call(second, 'openWorkspace', { path: makeWorkspace({ 'x.txt': 'x\n' }) });
    expect(await call(second, 'folderSettings', { workspace: other.id })).toMatchObject({ alwaysImport: false });
    await second.close();
  });
});

describe('service: Record changes', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function watchSession(service: RetraceService, workspace: string) {
    return (await call(service, 'listSessions', { workspace })).find((s) => s.agent === 'watch');
  }

  it('on: settled edits become checkpoints of one watch session; kept across a restart; off: nothing more', async () => {
    const { root, home } = world();
    const first = createService({ host: 'serve', dataHome: home, recordQuietMs: 300 });
    const events: RetraceEvent[] = [];
    first.subscribe((e) => events.push(e));
    const { id: workspace } = await call(first, 'openWorkspace', { path: root });
    expect(await call(first, 'setFolderSettings', { workspace, recordChanges: true })).toMatchObject({
      recordChanges: true,
    });
    expect(events).toContainEqual({
      type: 'folder-settings',
      workspace,
      settings: { alwaysImport: false, recordChanges: true },
    });
    writeFileSync(join(root, 'app.txt'), 'v2\n');
    // The edit, and before it the folder as recording began.
    await expect.poll(async () => (await watchSession(first, workspace))?.checkpoints, { timeout: 15_000 }).toBe(2);
    const session = (await watchSession(first, workspace))!;
    const page = await call(first, 'timeline', { workspace, session: session.id });
    expect(page.messages.map((m) => m.text)).toEqual([
      'Before the first change (watching began)',
      'Files changed: app.txt',
    ]);
    // The session logs are followed as for any writer: the windows hear of the new checkpoint.
    await expect.poll(() => events.some((e) => e.type === 'messages-appended' && e.session === session.id)).toBe(true);
    await first.close();

    // Restarted: the folder records again as soon as it is opened, into the same session.
    const second = createService({ host: 'serve', dataHome: home, recordQuietMs: 300 });
    await call(second, 'openWorkspace', { path: root });
    expect(await call(second, 'folderSettings', { workspace })).toMatchObject({ recordChanges: true });
    writeFileSync(join(root, 'app.txt'), 'v3\n');
    // No second baseline: the session's last checkpoint already holds the folder as this run began.
    await expect.poll(async () => (await watchSession(second, workspace))?.checkpoints, { timeout: 15_000 }).toBe(3);
    expect((await watchSession(second, workspace))!.id).toBe(session.id);

    expect(await call(second, 'setFolderSettings', { workspace, recordChanges: false })).toMatchObject({
      recordChanges: false,
    });
    writeFileSync(join(root, 'app.txt'), 'v4\n');
    await sleep(1500);
    expect((await watchSession(second, workspace))!.checkpoints).toBe(3);
    await second.close();

    const third = createService({ host: 'serve', dataHome: home, recordQuietMs: 300 });
    await call(third, 'openWorkspace', { path: root });
    expect(await call(third, 'folderSettings', { workspace })).toMatchObject({ recordChanges: false });
    await third.close();
  });

  it('two processes on one folder (the app and retrace serve): the switch follows across them, each change recorded once', async () => {
    const { root, home } = world();
    const app = createService({ host: 'serve', dataHome: home, recordQuietMs: 300 });
    const serve = createService({ host: 'serve', dataHome: home, recordQuietMs: 300 });
    try {
      const heard: FolderSettings[] = [];
      serve.subscribe((e) => e.type === 'folder-settings' && heard.push(e.settings));
      const { id: workspace } = await call(app, 'openWorkspace', { path: root });
      await call(serve, 'openWorkspace', { path: root });

      await call(app, 'setFolderSettings', { workspace, recordChanges: true });
      await expect.poll(() => heard.at(-1)?.recordChanges, { timeout: 10_000 }).toBe(true);
      expect(await call(serve, 'folderSettings', { workspace })).toMatchObject({ recordChanges: true });

      writeFileSync(join(root, 'app.txt'), 'v2\n');
      await expect.poll(async () => (await watchSession(app, workspace))?.checkpoints, { timeout: 15_000 }).toBe(2);
      await sleep(1500); // both watchers have settled by now
      const session = (await watchSession(app, workspace))!;
      const page = await call(app, 'timeline', { workspace, session: session.id });
      expect(page.messages.map((m) => m.text)).toEqual([
        'Before the first change (watching began)',
        'Files changed: app.txt',
      ]);

      await call(serve, 'setFolderSettings', { workspace, recordChanges: false });
      await expect.poll(async () => (await call(app, 'folderSettings', { workspace })).recordChanges).toBe(false);
      writeFileSync(join(root, 'app.txt'), 'v3\n');
      await sleep(1500);
      expect((await watchSession(app, workspace))!.checkpoints).toBe(2);
    } finally {
      await app.close();
      await serve.close();
    }
  });

  it('closed right after switching it on: nothing keeps recording (a settings change heard late starts nothing)', async () => {
    const { root, home } = world();
    const service = createService({ host: 'serve', dataHome: home, recordQuietMs: 200 });
    const { id: workspace } = await call(service, 'openWorkspace', { path: root });
    await call(service, 'setFolderSettings', { workspace, recordChanges: true });
    await service.close(); // the settings file's own change is still being debounced
    await sleep(600);
    writeFileSync(join(root, 'app.txt'), 'v2 after close\n');
    await sleep(1500);
    const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    const watched = (await engine.listSessions()).filter((s) => s.agent === 'watch');
    expect(watched.map((s) => s.checkpoints)).toEqual([]);
  });
});

/**
 * `retrace import cline`: a Cline-shaped task folder and a shadow repository made the way Cline makes one
 * (`checkpoints/<cwdHash>/.git`, core.worktree = the workspace, commits `checkpoint-<cwdHash>-<taskId>`),
 * then browsed and restored through Retrace. Cline's repository is only read.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  cliJson,
  gitManifest,
  makeWorkspace,
  manifestsEqual,
  refs,
  runCli,
  shadowDir,
  tempDir,
  tempHome,
  workspaceDataDir,
} from '../helpers';

afterAll(cleanupTempDirs);

const TASK = '1733050000000';

/** FORMATS.md: h = 0; for each UTF-16 unit c: h = (h*31 + c) >>> 0; in decimal. */
function cwdHash(cwd: string): string {
  let h = 0;
  for (const c of cwd) for (let i = 0; i < c.length; i++) h = (h * 31 + c.charCodeAt(i)) >>> 0;
  return String(h);
}

function clineGit(gitDir: string, ws: string, args: string[]): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], {
    cwd: ws,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();
}

/** Cline's shadow repo for `ws`: init, core.worktree, its identity, an initial commit; returns a checkpoint function. */
function clineRepo(storage: string, ws: string) {
  const hash = cwdHash(ws);
  const dir = join(storage, 'checkpoints', hash);
  mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '--quiet', dir], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
  const gitDir = join(dir, '.git');
  clineGit(gitDir, ws, ['config', 'core.worktree', ws]);
  clineGit(gitDir, ws, ['config', 'commit.gpgSign', 'false']);
  clineGit(gitDir, ws, ['config', 'user.name', 'Cline Checkpoint']);
  clineGit(gitDir, ws, ['config', 'user.email', 'checkpoint@cline.bot']);
  clineGit(gitDir, ws, ['commit', '--quiet', '--allow-empty', '-m', 'initial commit']);
  const checkpoint = () => {
    clineGit(gitDir, ws, ['add', '.', '--ignore-errors']);
    clineGit(gitDir, ws, ['commit', '--quiet', '--allow-empty', '--no-verify', '-m', `checkpoint-${hash}-${TASK}`]);
    return clineGit(gitDir, ws, ['rev-parse', 'HEAD']);
  };
  return { gitDir, checkpoint, hash };
}

function clineTask(
  storage: string,
  ws: string,
  hashes: [string, string, string],
  taskDir = join(storage, 'tasks', TASK),
) {
  mkdirSync(taskDir, { recursive: true });
  const t0 = Date.UTC(2025, 2, 3, 12, 0, 0);
  const ui = [
    { ts: t0, type: 'say', say: 'task', text: 'Add a farewell to the app', conversationHistoryIndex: -1 },
    {
      ts: t0 + 1000,
      type: 'say',
      say: 'checkpoint_created',
      lastCheckpointHash: hashes[0],
      conversationHistoryIndex: 0,
    },
    {
      ts: t0 + 2000,
      type: 'say',
      say: 'api_req_started',
      text: JSON.stringify({ request: '…', tokensIn: 10, tokensOut: 5, cost: 0.01 }),
      conversationHistoryIndex: 0,
    },
    { ts: t0 + 3000, type: 'say', say: 'text', text: 'I will edit', partial: true },
    {
      ts: t0 + 3000,
      type: 'say',
      say: 'text',
      text: 'I will edit app.ts and add farewell.ts.',
      conversationHistoryIndex: 1,
    },
    {
      ts: t0 + 4000,
      type: 'say',
      say: 'tool',
      text: JSON.stringify({ tool: 'editedExistingFile', path: 'src/app.ts', diff: '-hi\n+bye' }),
      conversationHistoryIndex: 1,
    },
    {
      ts: t0 + 5000,
      type: 'say',
      say: 'tool',
      text: JSON.stringify({ tool: 'newFileCreated', path: 'src/farewell.ts', content: 'bye' }),
      conversationHistoryIndex: 2,
    },
    {
      ts: t0 + 6000,
      type: 'say',
      say: 'checkpoint_created',
      lastCheckpointHash: hashes[1],
      conversationHistoryIndex: 3,
    },
    { ts: t0 + 7000, type: 'ask', ask: 'command', text: 'rm README.md', conversationHistoryIndex: 3 },
    { ts: t0 + 8000, type: 'say', say: 'command_output', text: '', conversationHistoryIndex: 3 },
    {
      ts: t0 + 9000,
      type: 'say',
      say: 'completion_result',
      text: 'Added the farewell and removed the README.',
      lastCheckpointHash: hashes[2],
      conversationHistoryIndex: 5,
      conversationHistoryDeletedRange: [1, 2],
    },
    { ts: t0 + 9500, type: 'ask', ask: 'completion_result', text: '' },
  ];
  writeFileSync(join(taskDir, 'ui_messages.json'), JSON.stringify(ui));
  writeFileSync(join(taskDir, 'api_conversation_history.json'), '[]');
  writeFileSync(
    join(taskDir, 'task_metadata.json'),
    JSON.stringify({ files_in_context: [{ path: 'src/app.ts', record_state: 'active' }], model_usage: [] }),
  );
  mkdirSync(join(storage, 'state'), { recursive: true });
  writeFileSync(
    join(storage, 'state', 'taskHistory.json'),
    JSON.stringify([{ id: TASK, ts: t0, task: 'Add a farewell to the app', cwdOnTaskInitialization: ws }]),
  );
  return taskDir;
}

function workspaceWithHistory(storage: string) {
  const ws = makeWorkspace({ 'src/app.ts': "console.log('hi');\n", 'README.md': '# app\n', 'keep.txt': 'mine\n' });
  const repo = clineRepo(storage, ws);
  const h1 = repo.checkpoint();
  writeFileSync(join(ws, 'src/app.ts'), "console.log('bye');\n");
  writeFileSync(join(ws, 'src/farewell.ts'), "export const bye = 'bye';\n");
  const h2 = repo.checkpoint();
  rmSync(join(ws, 'README.md'));
  const h3 = repo.checkpoint();
  // A restore in Cline moves its branch back (reset --hard): the newest checkpoint is then reachable from no ref there.
  clineGit(repo.gitDir, ws, ['update-ref', 'HEAD', h2]);
  return { ws, repo, hashes: [h1, h2, h3] as [string, string, string] };
}

describe('retrace import cline', () => {
  it("brings in the task's messages and Cline's own commits (hashes unchanged, kept by refs), then diffs and restores them", async () => {
    const home = tempHome();
    const storage = tempDir('retrace-cline-');
    const { ws, repo, hashes } = workspaceWithHistory(storage);
    const taskDir = clineTask(storage, ws, hashes);
    const clineBefore = gitManifest(join(storage, 'checkpoints'));

    const res = await cliJson(['import', 'cline', taskDir], { home }); // workspace from taskHistory, storage = grandparent
    expect(res).toMatchObject({
      session: TASK,
      messages: 8, // visible ones: Cline's chat hides none of them
      checkpoints: 3,
      hidden: 0,
      workspace: ws,
      repository: repo.gitDir,
      unavailable: 0,
    });
    const log = await cliJson<{ messages: { role: string; text: string; hash: string | null }[] }>(
      ['log', '--cwd', ws],
      { home },
    );
    // All shown: conversationHistoryDeletedRange only trims the model's context; the streaming state of the
    // text (same ts, partial) gave way to its final form.
    expect(log.messages.map((m) => [m.role, m.text, m.hash])).toEqual([
      ['user', 'Add a farewell to the app', null],
      ['system', 'Checkpoint', hashes[0]],
      ['assistant', 'I will edit app.ts and add farewell.ts.', null],
      ['tool', 'editedExistingFile src/app.ts', null],
      ['tool', 'newFileCreated src/farewell.ts', null],
      ['system', 'Checkpoint', hashes[1]],
      ['tool', 'command rm README.md', null],
      ['assistant', 'Added the farewell and removed the README.', hashes[2]],
    ]);
    const sessions = await cliJson<{ title: string; source: string }[]>(['sessions', '--cwd', ws], { home });
    expect(sessions).toMatchObject([{ title: 'Add a farewell to the app', source: 'cline' }]);
    const ours = refs(shadowDir(home, ws), 'refs/retrace/imports/cline/');
    expect([...ours.keys()].sort()).toEqual(hashes.map((h) => `refs/retrace/imports/cline/${TASK}/${h}`).sort());

    const diff = async (a: string, b: string) =>
      (await cliJson<{ files: { path: string; status: string }[] }>(['diff', a, b, '--cwd', ws], { home })).files.map(
        (f) => `${f.status} ${f.path}`,
      );
    expect(await diff(hashes[0], hashes[1])).toEqual(['modified src/app.ts', 'added src/farewell.ts']);
    expect(await diff(hashes[1], hashes[2])).toEqual(['deleted README.md']);

    const restored = await cliJson<{ changed: string[] }>(['restore', hashes[0].slice(0, 10), '--code', '--cwd', ws], {
      home,
    });
    expect(restored.changed.sort()).toEqual(['README.md', 'src/app.ts', 'src/farewell.ts']);
    expect(readFileSync(join(ws, 'src/app.ts'), 'utf8')).toBe("console.log('hi');\n");
    expect(existsSync(join(ws, 'src/farewell.ts'))).toBe(false);
    expect(readFileSync(join(ws, 'README.md'), 'utf8')).toBe('# app\n');
    await cliJson(['undo', '--cwd', ws], { home });
    expect(existsSync(join(ws, 'README.md'))).toBe(false);
    expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('mine\n');

    // Read-only: not a byte (or mtime) of Cline's repository changed.
    expect(manifestsEqual(gitManifest(join(storage, 'checkpoints')), clineBefore)).toBe(true);
    const again = await cliJson(['import', 'cline', taskDir], { home });
    expect(again).toMatchObject({ skipped: true });
  });

  it('older Cline builds: a per-task repository at tasks/<id>/checkpoints/.git', async () => {
    const home = tempHome();
    const storage = tempDir('retrace-cline-');
    const { ws, repo, hashes } = workspaceWithHistory(storage);
    const taskDir = clineTask(storage, ws, hashes);
    // Move the repository where older builds kept it (git's own files; the work tree stays the workspace).
    execFileSync('mv', [join(storage, 'checkpoints', repo.hash), join(taskDir, 'checkpoints')]);
    const res = await cliJson(['import', 'cline', taskDir], { home });
    expect(res).toMatchObject({ checkpoints: 3, unavailable: 0, repository: join(taskDir, 'checkpoints', '.git') });
  });

  it('without the shadow repository the messages still come in, checkpoints marked unavailable; --storage and --cwd', async () => {
    const home = tempHome();
    const storage = tempDir('retrace-cline-');
    const { ws, hashes } = workspaceWithHistory(storage);
    rmSync(join(storage, 'checkpoints'), { recursive: true });
    const elsewhere = join(tempDir('retrace-task-'), TASK);
    clineTask(storage, ws, hashes, elsewhere);
    rmSync(join(storage, 'state'), { recursive: true }); // no history: the workspace comes from --cwd
    const r = await runCli(['import', 'cline', elsewhere, '--storage', storage, '--cwd', ws, '--json'], { home });
    expect(r.code).toBe(0);
    // Cline's checkpoints are unavailable; the prompt and the two edits get rebuilt ones instead (the first
    // edit's `diff` is no SEARCH/REPLACE, so it is reported, not rebuilt).
    expect(r.json).toMatchObject({
      session: TASK,
      messages: 8,
      checkpoints: 3,
      unavailable: 3,
      repository: null,
      reconstructed: {
        files: ['src/farewell.ts'],
        missing: [{ path: 'src/app.ts', reason: expect.stringMatching(/not well-formed SEARCH\/REPLACE/) }],
      },
    });
    const log = await cliJson<{ messages: { text: string; hash: string | null }[] }>(['log', '--cwd', ws], { home });
    expect(log.messages.filter((m) => m.hash !== null).map((m) => m.text)).toEqual([
      'Add a farewell to the app',
      'editedExistingFile src/app.ts',
      'newFileCreated src/farewell.ts',
    ]);
    const events = readFileSync(join(workspaceDataDir(home, ws)!, 'sessions', `${TASK}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { meta?: { checkpointUnavailable?: boolean } });
    expect(events.filter((e) => e.meta?.checkpointUnavailable)).toHaveLength(3);
    const noCwd = await runCli(['import', 'cline', elsewhere, '--storage', storage], { home });
    expect(noCwd.code).toBe(1);
    expect(noCwd.stderr).toMatch(/cannot tell the workspace of Cline task .*--cwd/);
  });

  it('a file of the task folder given instead of the folder imports the task (auto and cline alike)', async () => {
    const storage = tempDir('retrace-cline-');
    const { ws, hashes } = workspaceWithHistory(storage);
    const task = clineTask(storage, ws, hashes);
    for (const [format, file] of [
      ['auto', 'ui_messages.json'],
      ['cline', 'api_conversation_history.json'],
    ] as const) {
      if (file !== 'ui_messages.json') writeFileSync(join(task, file), '[]\n');
      const home = tempHome();
      const r = await cliJson(['import', format, join(task, file)], { home });
      expect(r, file).toMatchObject({ agent: 'cline', session: TASK, messages: 8 });
    }
  });
});

/**
 * Imported transcripts are archived (issue 14 item 5): a gzipped private copy in the workspace's data folder,
 * replaced when a changed transcript is imported again, counted by `status`, and enough to import the session
 * again once the agent has deleted its transcript (`retrace import archive SESSION`). Through the real CLI.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  cliJson,
  errorCode,
  makeWorkspace,
  runCli,
  tempDir,
  tempHome,
  workspaceDataDir,
} from '../helpers';
import { rewindTranscript } from './claudeTranscript';

afterAll(cleanupTempDirs);

const SESSION = '11111111-2222-4333-8444-555555555555';

interface Log {
  messages: { text: string; hash: string | null }[];
}

describe('archived transcripts', () => {
  it('keeps a private gzipped copy, replaces it on re-import, and imports from it when the source is gone', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'three\n', 'b.txt': 'bee\n' });
    const config = tempDir('retrace-claude-');
    const project = join(config, 'projects', ws.replace(/[^a-zA-Z0-9]/g, '-'));
    mkdirSync(project, { recursive: true });
    const file = join(project, `${SESSION}.jsonl`);
    const first = rewindTranscript(ws);
    writeFileSync(file, first);
    const env = { CLAUDE_CONFIG_DIR: config };

    expect((await runCli(['import', 'claude-code', file, '--cwd', ws], { home, env })).code).toBe(0);
    const archive = join(workspaceDataDir(home, ws)!, 'archive', `${SESSION}.gz`);
    const st = statSync(archive);
    expect(st.mode & 0o777).toBe(0o600);
    expect(statSync(join(workspaceDataDir(home, ws)!, 'archive')).mode & 0o777).toBe(0o700);
    const gz = readFileSync(archive);
    expect([gz[0], gz[1]]).toEqual([0x1f, 0x8b]); // gzip
    expect(gz.length).toBeLessThan(Buffer.byteLength(first));
    expect(gunzipSync(gz).toString('utf8')).toBe(first);
    const status = await cliJson<{ archiveBytes: number }>(['status', '--cwd', ws], { home });
    expect(status.archiveBytes).toBeGreaterThanOrEqual(gz.length);

    // The agent appended to its transcript: a re-import replaces the copy.
    const changed = first.replace('Create a.txt', 'Create a.txt, please');
    writeFileSync(file, changed);
    expect((await runCli(['import', 'claude-code', file, '--cwd', ws, '--replace'], { home, env })).code).toBe(0);
    expect(gunzipSync(readFileSync(archive)).toString('utf8')).toBe(changed);
    const before = await cliJson<Log>(['log', '--cwd', ws, '--all'], { home });

    // The agent's cleanup deleted it: the session comes back from the copy, the same messages.
    rmSync(file);
    const again = await cliJson<{ session: string; agent: string; skipped: boolean }>(
      ['import', 'archive', SESSION, '--cwd', ws],
      { home, env },
    );
    expect(again).toMatchObject({ session: SESSION, agent: 'claude-code', skipped: false });
    const after = await cliJson<Log>(['log', '--cwd', ws, '--all'], { home });
    expect(after.messages.map((m) => m.text)).toEqual(before.messages.map((m) => m.text));
    expect(after.messages[0]!.text).toBe('Create a.txt, please');
    expect(gunzipSync(readFileSync(archive)).toString('utf8')).toBe(changed); // the copy itself is kept as it was
    expect(existsSync(file)).toBe(false);
    // No scratch copy left behind.
    expect(readdirSync(join(workspaceDataDir(home, ws)!, 'archive')).filter((n) => n.startsWith('.'))).toEqual([]);

    const none = await runCli(['import', 'archive', 'no-such-session', '--cwd', ws, '--json'], { home });
    expect(none.code).toBe(1);
    expect(errorCode(none)).toBe('E_IMPORT');
  });
  it('a Cline task: its ui_messages.json is kept, and the task comes back from it once its folder is gone', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'app.txt': 'hi\n' });
    const storage = tempDir('retrace-cline-');
    const taskDir = join(storage, 'tasks', '1741003200000');
    mkdirSync(taskDir, { recursive: true });
    const t0 = Date.UTC(2025, 2, 3, 12, 0, 0);
    const ui = JSON.stringify([
      { ts: t0, type: 'say', say: 'task', text: 'Add a farewell', conversationHistoryIndex: -1 },
      {
        ts: t0 + 1000,
        type: 'say',
        say: 'tool',
        text: JSON.stringify({ tool: 'newFileCreated', path: 'farewell.txt', content: 'bye' }),
        conversationHistoryIndex: 1,
      },
      { ts: t0 + 2000, type: 'say', say: 'completion_result', text: 'Done.', conversationHistoryIndex: 2 },
    ]);
    writeFileSync(join(taskDir, 'ui_messages.json'), ui);
    const first = await cliJson<{ session: string; checkpoints: number }>(['import', 'cline', taskDir, '--cwd', ws], {
      home,
    });
    const archive = join(workspaceDataDir(home, ws)!, 'archive', `${first.session}.gz`);
    expect(gunzipSync(readFileSync(archive)).toString('utf8')).toBe(ui);
    const before = await cliJson<Log>(['log', '--cwd', ws], { home });

    rmSync(join(storage, 'tasks'), { recursive: true });
    const again = await cliJson<{ session: string; agent: string; checkpoints: number }>(
      ['import', 'archive', first.session, '--cwd', ws],
      { home },
    );
    expect(again).toMatchObject({ session: first.session, agent: 'cline', checkpoints: first.checkpoints });
    const after = await cliJson<Log>(['log', '--cwd', ws], { home });
    expect(after.messages.map((m) => m.text)).toEqual(before.messages.map((m) => m.text));
  });
});

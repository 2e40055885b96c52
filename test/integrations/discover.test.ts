/**
 * `retrace discover [--import]` on a fake home (every agent's folder moved by its own variable, synthetic
 * sessions written here) holding sessions of all four agents for two folders. The two folders' names differ only
 * in '-' against '_', so Claude Code keeps both in ONE project folder: only the transcripts' own `cwd` tells
 * them apart.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, runCli, tempDir, tempHome } from '../helpers';

interface Found {
  agent: string;
  path: string;
  id: string;
  title: string;
  updatedAt: string;
  imported: boolean;
  changed: boolean;
  action?: string;
  error?: { code: string; message: string };
}
interface LogMessage {
  id: string;
  role: string;
  text: string;
}

const root = tempDir('retrace-discover-');
const fake = join(root, 'home');
const wsA = join(root, 'proj-a');
const wsB = join(root, 'proj_a');
const data = tempHome();
const env = {
  HOME: fake,
  CLAUDE_CONFIG_DIR: join(fake, 'claude-config'),
  CODEX_HOME: join(fake, 'codex-home'),
  GEMINI_CLI_HOME: join(fake, 'gemini-home'),
  XDG_CONFIG_HOME: join(fake, 'config'),
  APPDATA: undefined,
};
const run = <T>(args: string[], ws: string) => cliJson<T>([...args, '--cwd', ws], { home: data, env });

let t = Date.parse('2025-11-20T10:00:00Z');
const ts = (): string => new Date((t += 1000)).toISOString();

// ---- Claude Code: projects/<every char outside [a-zA-Z0-9] → '-'>/<sessionId>.jsonl
const claudeDir = join(env.CLAUDE_CONFIG_DIR, 'projects', wsA.replace(/[^a-zA-Z0-9]/g, '-'));
function claudeLines(sessionId: string, cwd: string, n: number, prompt: string): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const base = { isSidechain: false, userType: 'external', cwd, sessionId, version: '2.0.55' };
    const u = `${sessionId.slice(0, 8)}-u${i}`;
    const a = `${sessionId.slice(0, 8)}-a${i}`;
    const parent = i === 0 ? null : `${sessionId.slice(0, 8)}-a${i - 1}`;
    out.push(
      JSON.stringify({
        ...base,
        parentUuid: parent,
        type: 'user',
        uuid: u,
        timestamp: ts(),
        message: { role: 'user', content: `${prompt} #${i}` },
      }),
    );
    out.push(
      JSON.stringify({
        ...base,
        parentUuid: u,
        type: 'assistant',
        uuid: a,
        timestamp: ts(),
        message: {
          id: `msg_${a}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [{ type: 'text', text: `done ${prompt} #${i}` }],
        },
      }),
    );
  }
  return out.join('\n') + '\n';
}
const CLAUDE_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const CLAUDE_B = 'bbbbbbbb-0000-4000-8000-00000000000b';

// ---- Codex: sessions/YYYY/MM/DD/rollout-*.jsonl and archived_sessions/, session_meta first
function rollout(id: string, cwd: string, prompt: string): string {
  const l = (type: string, payload: object) => JSON.stringify({ timestamp: ts(), type, payload });
  return (
    [
      l('session_meta', {
        id,
        cwd,
        cli_version: '0.60.1',
        originator: 'codex_cli_rs',
        instructions: 'x'.repeat(100_000),
      }),
      l('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] }),
      l('event_msg', { type: 'user_message', message: prompt, images: [] }),
      l('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] }),
      l('event_msg', { type: 'agent_message', message: 'ok' }),
    ].join('\n') + '\n'
  );
}
const CODEX_A = '019aad50-0000-7000-8000-0000000000a1';
const CODEX_B = '019aad50-0000-7000-8000-0000000000b1';
const codexA = join(env.CODEX_HOME, 'sessions', '2025', '11', '20', `rollout-2025-11-20T10-00-00-${CODEX_A}.jsonl`);
const codexB = join(env.CODEX_HOME, 'archived_sessions', `rollout-2025-11-19T10-00-00-${CODEX_B}.jsonl`);

// ---- Gemini: <GEMINI_CLI_HOME>/.gemini/tmp/<sha256(root)>/chats/session-*.json
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
function geminiChat(dir: string, sessionId: string, project: string, prompt: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `session-2025-11-20T10-00-${sessionId.slice(0, 8)}.json`),
    JSON.stringify({
      sessionId,
      projectHash: sha(project),
      startTime: ts(),
      lastUpdated: ts(),
      messages: [
        { id: 'm1', timestamp: ts(), type: 'user', content: prompt },
        {
          id: 'm2',
          timestamp: ts(),
          type: 'gemini',
          content: 'sure',
          toolCalls: [],
          thoughts: [],
          model: 'gemini-2.5-pro',
        },
      ],
    }),
  );
}
const GEMINI_A = '15eaa698-0000-4000-8000-0000000000a2';
const GEMINI_B = '15eaa698-0000-4000-8000-0000000000b2';

// ---- Cline: <editor>/User/globalStorage/saoudrizwan.claude-dev/tasks/<id>/
function clineTask(editor: string, id: string, ws: string, prompt: string, where: 'metadata' | 'history'): void {
  const storage = join(env.XDG_CONFIG_HOME, editor, 'User', 'globalStorage', 'saoudrizwan.claude-dev');
  const dir = join(storage, 'tasks', id);
  mkdirSync(dir, { recursive: true });
  const t0 = Number(id);
  writeFileSync(
    join(dir, 'ui_messages.json'),
    JSON.stringify([
      { ts: t0, type: 'say', say: 'task', text: prompt },
      { ts: t0 + 1000, type: 'say', say: 'text', text: 'Working on it.' },
      { ts: t0 + 2000, type: 'say', say: 'completion_result', text: 'Done.' },
    ]),
  );
  writeFileSync(
    join(dir, 'task_metadata.json'),
    JSON.stringify(where === 'metadata' ? { cwd: ws } : { files_in_context: [] }),
  );
  mkdirSync(join(storage, 'state'), { recursive: true });
  writeFileSync(
    join(storage, 'state', 'taskHistory.json'),
    JSON.stringify([{ id, ts: t0, task: prompt, ...(where === 'history' ? { cwdOnTaskInitialization: ws } : {}) }]),
  );
}
const CLINE_A = '1733050000001';
const CLINE_B = '1733050000002';

beforeAll(() => {
  mkdirSync(wsA, { recursive: true });
  mkdirSync(wsB, { recursive: true });
  writeFileSync(join(wsA, 'a.txt'), 'A\n');
  writeFileSync(join(wsB, 'b.txt'), 'B\n');
  mkdirSync(claudeDir, { recursive: true });
  writeFileSync(join(claudeDir, `${CLAUDE_A}.jsonl`), claudeLines(CLAUDE_A, wsA, 2, 'fix A'));
  writeFileSync(join(claudeDir, `${CLAUDE_B}.jsonl`), claudeLines(CLAUDE_B, wsB, 1, 'fix B'));
  mkdirSync(join(codexA, '..'), { recursive: true });
  mkdirSync(join(codexB, '..'), { recursive: true });
  writeFileSync(codexA, rollout(CODEX_A, wsA, 'codex on A'));
  writeFileSync(codexB, rollout(CODEX_B, wsB, 'codex on B'));
  const gemTmp = join(env.GEMINI_CLI_HOME, '.gemini', 'tmp');
  geminiChat(join(gemTmp, sha(wsA), 'chats'), GEMINI_A, wsA, 'gemini on A');
  geminiChat(join(gemTmp, sha(wsB), 'chats'), GEMINI_B, wsB, 'gemini on B');
  clineTask('Code', CLINE_A, wsA, 'cline on A', 'metadata');
  clineTask('Cursor', CLINE_B, wsB, 'cline on B', 'history');
});
afterAll(cleanupTempDirs);

const ids = (list: Found[]) => list.map((s) => `${s.agent}:${s.id}`).sort();
const OWN_A = [`claude-code:${CLAUDE_A}`, `cline:${CLINE_A}`, `codex:${CODEX_A}`, `gemini:${GEMINI_A}`].sort();
const OWN_B = [`claude-code:${CLAUDE_B}`, `cline:${CLINE_B}`, `codex:${CODEX_B}`, `gemini:${GEMINI_B}`].sort();

describe('retrace discover', () => {
  it('gives each folder exactly its own sessions of all four agents, none imported yet', async () => {
    const a = await run<Found[]>(['discover'], wsA);
    const b = await run<Found[]>(['discover'], wsB);
    expect(ids(a)).toEqual(OWN_A);
    expect(ids(b)).toEqual(OWN_B);
    for (const s of [...a, ...b]) {
      expect(s.imported).toBe(false);
      expect(s.changed).toBe(false);
      expect(Number.isNaN(Date.parse(s.updatedAt))).toBe(false);
    }
    const title = (agent: string) => a.find((s) => s.agent === agent)!.title;
    expect(title('claude-code')).toBe('fix A #0');
    expect(title('codex')).toBe('codex on A');
    expect(title('gemini')).toBe('gemini on A');
    expect(title('cline')).toBe('cline on A');
    expect(a.find((s) => s.agent === 'cline')!.path).toMatch(/tasks[\\/]1733050000001$/);
  }, 60_000);

  it('matches the folder through a symlink to it (real paths are compared)', async () => {
    const link = join(root, 'link-to-a');
    symlinkSync(wsA, link);
    expect(ids(await run<Found[]>(['discover'], link))).toEqual(OWN_A);
  }, 60_000);

  it('--import brings them in; then imported=true, changed=false; a grown transcript is changed and updated without duplicates', async () => {
    const first = await run<Found[]>(['discover', '--import'], wsA);
    expect(first.filter((r) => r.action !== 'imported')).toEqual([]);
    expect(ids(first)).toEqual(OWN_A);

    const sessions = await run<{ id: string; agent: string }[]>(['sessions'], wsA);
    expect(sessions.map((s) => `${s.agent}:${s.id}`).sort()).toEqual(OWN_A);
    expect(await run<unknown[]>(['sessions'], wsB)).toEqual([]);

    const again = await run<Found[]>(['discover'], wsA);
    expect(again.every((s) => s.imported && !s.changed)).toBe(true);

    // Claude Code and Codex went on after the import.
    appendFileSync(
      join(claudeDir, `${CLAUDE_A}.jsonl`),
      claudeLines(CLAUDE_A, wsA, 3, 'fix A').split('\n').slice(4).join('\n'),
    );
    appendFileSync(
      codexA,
      JSON.stringify({
        timestamp: ts(),
        type: 'event_msg',
        payload: { type: 'user_message', message: 'codex more', images: [] },
      }) + '\n',
    );
    const grown = await run<Found[]>(['discover'], wsA);
    expect(
      grown
        .filter((s) => s.changed)
        .map((s) => s.agent)
        .sort(),
    ).toEqual(['claude-code', 'codex']);
    expect(grown.every((s) => s.imported)).toBe(true);

    const second = await run<Found[]>(['discover', '--import'], wsA);
    const action = (agent: string) => second.find((s) => s.agent === agent)!.action;
    expect([action('claude-code'), action('codex'), action('gemini'), action('cline')]).toEqual([
      'updated',
      'updated',
      'unchanged',
      'unchanged',
    ]);
    const after = await run<Found[]>(['discover'], wsA);
    expect(after.every((s) => s.imported && !s.changed)).toBe(true);

    const log = await run<{ messages: LogMessage[] }>(['log', '--session', CLAUDE_A], wsA);
    const prompts = log.messages.filter((m) => m.role === 'user').map((m) => m.text);
    expect(prompts).toEqual(['fix A #0', 'fix A #1', 'fix A #2']);
    const codexLog = await run<{ messages: LogMessage[] }>(['log', '--session', CODEX_A], wsA);
    expect(codexLog.messages.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['codex on A', 'codex more']);
    expect((await run<unknown[]>(['sessions'], wsA)).length).toBe(4);
  }, 180_000);

  it('a session recorded in the folder by other means is imported=true but never changed (never imported over); a broken transcript fails alone', async () => {
    const r = await runCli(
      ['message', '--role', 'user', '--text', 'hi', '--session', GEMINI_B, '--cwd', wsB, '--json'],
      {
        home: data,
        env,
      },
    );
    expect(r.code).toBe(0);
    const chats = join(env.GEMINI_CLI_HOME, '.gemini', 'tmp', sha(wsB), 'chats');
    writeFileSync(join(chats, 'extra.txt'), 'not a chat');
    writeFileSync(join(chats, 'session-broken.json'), '{"sessionId": "x", "messages": [');
    const b = await run<Found[]>(['discover'], wsB);
    const gem = b.find((s) => s.id === GEMINI_B)!;
    expect([gem.imported, gem.changed]).toEqual([true, false]);
    expect(ids(b)).toEqual([...OWN_B, 'gemini:session-broken'].sort());

    const imported = await run<Found[]>(['discover', '--import'], wsB);
    const byId = new Map(imported.map((s) => [s.id, s]));
    expect(byId.get(GEMINI_B)!.action).toBe('unchanged');
    expect(byId.get('session-broken')!.action).toBe('failed');
    expect(byId.get('session-broken')!.error!.code).toBe('E_IMPORT');
    expect([CLAUDE_B, CODEX_B, CLINE_B].map((id) => byId.get(id)!.action)).toEqual([
      'imported',
      'imported',
      'imported',
    ]);
    const log = await run<{ messages: LogMessage[] }>(['log', '--session', GEMINI_B], wsB);
    expect(log.messages.map((m) => m.text)).toEqual(['hi']);
  }, 120_000);
});

/**
 * `retrace hook gemini` fed the payloads of one Gemini CLI turn, in the shapes Gemini CLI sends them (see
 * src/main/integrations/gemini/hook.ts for where they were looked up), while the "agent" really changes
 * files — write_file, replace, and a shell command run by a real shell. Gemini CLI runs hooks with
 * GEMINI_PROJECT_DIR set to the project root; its `cwd` here is a folder below it. Every call exits 0 with `{}`
 * on stdout (Gemini parses stdout as JSON); bad payloads land in hook.log.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, makeWorkspace, runCli, tempHome } from '../helpers';
import { measureHookLatency } from './hookLatency';

afterAll(cleanupTempDirs);

const SESSION = '7d3c2b1a-0f9e-4d8c-b7a6-5e4f3d2c1b0a';

function payload(cwd: string, fields: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: SESSION,
    transcript_path: `/home/u/.gemini/tmp/abc/chats/session-2026-12-01T10-00-${SESSION.slice(0, 8)}.json`,
    cwd,
    timestamp: '2026-12-01T10:00:00.000Z',
    ...fields,
  });
}

describe('retrace hook gemini', () => {
  it('records a turn: prompt, write_file, replace, a shell change, an ignored read, AfterAgent → messages and checkpoints', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'src/app.js': "console.log('hi');\n", 'README.md': '# app\n' });
    const cwd = join(ws, 'src');
    const env = { GEMINI_PROJECT_DIR: ws, RETRACE_HOOK_TRACE: '1' };
    const hook = async (fields: Record<string, unknown>) => {
      const r = await runCli(['hook', 'gemini'], { home, cwd, env, input: payload(cwd, fields) });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '{}\n', '']);
    };

    await hook({ hook_event_name: 'BeforeAgent', prompt: 'Add a greeting module and use it' });
    writeFileSync(join(cwd, 'greet.js'), 'export const greet = (n) => `Hello ${n}`;\n');
    await hook({
      hook_event_name: 'AfterTool',
      tool_name: 'write_file',
      tool_input: { file_path: join(cwd, 'greet.js'), content: 'export const greet = (n) => `Hello ${n}`;\n' },
      tool_response: { llmContent: 'Successfully created and wrote to new file', returnDisplay: '' },
    });
    writeFileSync(join(ws, 'README.md'), '# app\n\nSays hello.\n');
    await hook({
      hook_event_name: 'AfterTool',
      tool_name: 'replace',
      tool_input: { file_path: join(ws, 'README.md'), old_string: '# app\n', new_string: '# app\n\nSays hello.\n' },
      tool_response: { llmContent: 'Successfully modified file' },
    });
    const command = "sed -i 's/hi/hello/' app.js";
    execFileSync('sh', ['-c', command], { cwd });
    await hook({
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_input: { command, description: 'Use the greeting' },
      tool_response: { llmContent: 'Exit Code: 0' },
    });
    await hook({
      hook_event_name: 'AfterTool',
      tool_name: 'read_file',
      tool_input: { file_path: join(ws, 'README.md') },
      tool_response: { llmContent: '# app' },
    });
    const reply = 'Added src/greet.js and app.js now says hello.';
    await hook({
      hook_event_name: 'AfterAgent',
      prompt: 'Add a greeting module and use it',
      prompt_response: reply,
      stop_hook_active: false,
    });

    const log = await cliJson<{ session: string; messages: { role: string; text: string; hash: string | null }[] }>(
      ['log', '--cwd', ws],
      { home },
    );
    expect(log.session).toBe(SESSION);
    expect(log.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Add a greeting module and use it'],
      ['tool', 'write_file src/greet.js'], // named from the project root, not the agent's cwd
      ['tool', 'replace README.md'],
      ['tool', `run_shell_command ${command}`],
      ['assistant', reply],
    ]);
    const [prompt, write, replace, shell, stop] = log.messages.map((m) => m.hash!);
    const file = (a: string, b: string, path: string) =>
      cliJson<{ before: string | null; after: string | null }>(['diff', a, b, '--file', path, '--cwd', ws], { home });
    expect(await file(prompt!, write!, 'src/greet.js')).toMatchObject({
      before: null,
      after: 'export const greet = (n) => `Hello ${n}`;\n',
    });
    expect(await file(write!, replace!, 'README.md')).toMatchObject({
      before: '# app\n',
      after: '# app\n\nSays hello.\n',
    });
    expect(await file(replace!, shell!, 'src/app.js')).toMatchObject({
      before: "console.log('hi');\n",
      after: "console.log('hello');\n",
    });
    expect((await cliJson<{ files: unknown[] }>(['diff', shell!, stop!, '--cwd', ws], { home })).files).toEqual([]);
    const sessions = await cliJson<{ id: string; source: string; checkpoints: number }[]>(['sessions', '--cwd', ws], {
      home,
    });
    expect(sessions).toMatchObject([{ id: SESSION, source: 'gemini', checkpoints: 5 }]);
    const hookLog = readFileSync(join(home, 'logs', 'hook.log'), 'utf8');
    expect(hookLog).not.toMatch(/ error /);
    expect(hookLog).toMatch(/ok AfterTool .*\(not recorded\)/); // the read
  });

  it('never fails the agent: bad JSON, no session, a protected folder → exit 0, `{}`, logged', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const env = { GEMINI_PROJECT_DIR: undefined };
    const inputs = [
      'not json at all',
      JSON.stringify({ hook_event_name: 'AfterAgent', cwd: ws, prompt_response: 'x' }),
      JSON.stringify({ hook_event_name: 'BeforeAgent', session_id: 's1', cwd: '/', prompt: 'hi' }),
    ];
    for (const input of inputs) {
      const r = await runCli(['hook', 'gemini'], { home, cwd: ws, env, input });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '{}\n', '']);
    }
    const lines = readFileSync(join(home, 'logs', 'hook.log'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/error \? \?: E_INVALID_INPUT the hook payload is not JSON/);
    expect(lines[1]).toMatch(/error AfterAgent \?: .*no usable session_id/);
    expect(lines[2]).toMatch(/error BeforeAgent s1: E_PROTECTED_DIR/);
    expect(existsSync(join(home, 'workspaces'))).toBe(false);
  });

  it('latency: 10 calls through the hook server, as Gemini CLI runs them (median reported)', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    mkdirSync(join(ws, 'b'), { recursive: true });
    const calls = Array.from({ length: 10 }, (_, i) =>
      payload(ws, {
        hook_event_name: 'AfterTool',
        tool_name: 'write_file',
        tool_input: { file_path: join(ws, 'b', `f${i}.txt`), content: `${i}\n` },
        tool_response: {},
      }),
    );
    const res = await measureHookLatency({
      agent: 'gemini',
      home,
      cwd: ws,
      env: { GEMINI_PROJECT_DIR: ws },
      warmup: payload(ws, { hook_event_name: 'BeforeAgent', prompt: 'warm up' }),
      payloads: calls,
    });
    expect(res.viaServer).toBeGreaterThanOrEqual(10);
    console.log(`gemini hook latency via server (ms): median ${res.median}, calls ${JSON.stringify(res.ms)}`);
  });
});

/**
 * `retrace hook codex` fed the payloads of one Codex CLI turn, in the shapes Codex sends them (see
 * src/main/integrations/codex/hook.ts for where they were looked up), while the "agent" really changes files —
 * an apply_patch edit and a shell command run by a real shell. Then `retrace log`, `retrace diff --file` and
 * `retrace sessions` are checked. Every call exits 0 with `{}` on stdout; bad payloads land in hook.log.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, makeWorkspace, runCli, tempHome } from '../helpers';
import { measureHookLatency } from './hookLatency';

afterAll(cleanupTempDirs);

const SESSION = '019a7c1e-3b4d-7e8f-9a0b-1c2d3e4f5a6b';
const GREET = 'export const greet = (n) => `Hello ${n}`;\n';

function payload(ws: string, fields: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: SESSION,
    turn_id: 'turn-1',
    transcript_path: null,
    cwd: ws,
    model: 'gpt-5-codex',
    permission_mode: 'default',
    ...fields,
  });
}

describe('retrace hook codex', () => {
  it('records a turn: prompt, apply_patch, a shell change, an ignored MCP tool, Stop (twice) → messages and checkpoints', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'app.js': "console.log('hi');\n", 'README.md': '# app\n' });
    const hook = async (fields: Record<string, unknown>) => {
      const r = await runCli(['hook', 'codex'], {
        home,
        cwd: ws,
        env: { RETRACE_HOOK_TRACE: '1' },
        input: payload(ws, fields),
      });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '{}\n', '']);
    };

    await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'Add a greeting module and use it' });
    // apply_patch: Codex writes the file, then runs PostToolUse with the patch body as tool_input.command.
    writeFileSync(join(ws, 'greet.js'), GREET);
    const patch = `*** Begin Patch\n*** Add File: greet.js\n+${GREET.trimEnd()}\n*** End Patch\n`;
    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'apply_patch',
      tool_use_id: 'call_patch',
      tool_input: { command: patch },
      tool_response: 'Success. Updated the following files:\nA greet.js\n',
    });
    // A shell command changes a file that no tool input names: the next checkpoint still has it.
    const command = "sed -i 's/hi/hello/' app.js";
    execFileSync('sh', ['-c', command], { cwd: ws });
    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_use_id: 'call_sh',
      tool_input: { command },
      tool_response: { exit_code: 0, stdout: '', stderr: '' },
    });
    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'mcp__docs__search',
      tool_use_id: 'call_mcp',
      tool_input: { query: 'greeting' },
      tool_response: {},
    });
    const reply = 'Added greet.js; app.js now says hello.';
    await hook({ hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: reply });
    // Another Stop hook made the turn go on, and nothing new was said: not a second reply.
    await hook({ hook_event_name: 'Stop', stop_hook_active: true, last_assistant_message: reply });

    const log = await cliJson<{ session: string; messages: { role: string; text: string; hash: string | null }[] }>(
      ['log', '--cwd', ws],
      { home },
    );
    expect(log.session).toBe(SESSION);
    expect(log.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Add a greeting module and use it'],
      ['tool', 'apply_patch greet.js'],
      ['tool', `Bash ${command}`],
      ['assistant', reply],
    ]);
    const [prompt, edit, shell, stop] = log.messages.map((m) => m.hash!);
    expect([prompt, edit, shell, stop].every((h) => /^[0-9a-f]{40}$/.test(h!))).toBe(true);
    const file = (a: string, b: string, path: string) =>
      cliJson<{ before: string | null; after: string | null }>(['diff', a, b, '--file', path, '--cwd', ws], { home });
    expect(await file(prompt!, edit!, 'greet.js')).toMatchObject({ before: null, after: GREET });
    expect(await file(edit!, shell!, 'app.js')).toMatchObject({
      before: "console.log('hi');\n",
      after: "console.log('hello');\n",
    });
    const files = await cliJson<{ files: unknown[] }>(['diff', shell!, stop!, '--cwd', ws], { home });
    expect(files.files).toEqual([]);
    const sessions = await cliJson<{ id: string; source: string; checkpoints: number }[]>(['sessions', '--cwd', ws], {
      home,
    });
    expect(sessions).toMatchObject([{ id: SESSION, source: 'codex', checkpoints: 4 }]);
    const hookLog = readFileSync(join(home, 'logs', 'hook.log'), 'utf8');
    expect(hookLog).not.toMatch(/ error /);
    expect(hookLog).toMatch(/ok PostToolUse .*\(not recorded\)/); // the MCP tool
  });

  it('never fails the agent: bad JSON, no session, a protected folder, an unknown event → exit 0, `{}`, logged', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const inputs = [
      '{"hook_event_name": "UserPromptSubmit", ',
      '[1, 2]',
      JSON.stringify({ hook_event_name: 'Stop', cwd: ws, last_assistant_message: 'x' }),
      JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's1', cwd: '/', prompt: 'hi' }),
      JSON.stringify({ hook_event_name: 'PostToolUse', session_id: '../../etc', cwd: ws, tool_name: 'Bash' }),
    ];
    for (const input of inputs) {
      const r = await runCli(['hook', 'codex'], { home, cwd: ws, input });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '{}\n', '']);
    }
    const lines = readFileSync(join(home, 'logs', 'hook.log'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/error \? \?: E_INVALID_INPUT the hook payload is not JSON/);
    expect(lines[1]).toMatch(/E_INVALID_INPUT the hook payload is not a JSON object/);
    expect(lines[2]).toMatch(/error Stop \?: E_INVALID_INPUT .*no usable session_id/);
    expect(lines[3]).toMatch(/error UserPromptSubmit s1: E_PROTECTED_DIR/);
    expect(lines[4]).toMatch(/no usable session_id/);
    expect(existsSync(join(home, 'workspaces'))).toBe(false);
    // An event Retrace does not record is not an error, and logs nothing without RETRACE_HOOK_TRACE.
    const start = await runCli(['hook', 'codex'], {
      home,
      cwd: ws,
      input: payload(ws, { hook_event_name: 'SessionStart', source: 'startup' }),
    });
    expect([start.code, start.stdout]).toEqual([0, '{}\n']);
    expect(
      readFileSync(join(home, 'logs', 'hook.log'), 'utf8')
        .trimEnd()
        .split('\n'),
    ).toHaveLength(5);
  });

  it('latency: 10 calls through the hook server, as Codex runs them (median reported)', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const calls = Array.from({ length: 10 }, (_, i) => {
      writeFileSync(join(ws, 'a.txt'), `a${i}\n`);
      return payload(ws, {
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_use_id: `call_${i}`,
        tool_input: { command: `echo a${i} > a.txt` },
        tool_response: {},
      });
    });
    const res = await measureHookLatency({
      agent: 'codex',
      home,
      cwd: ws,
      warmup: payload(ws, { hook_event_name: 'UserPromptSubmit', prompt: 'warm up' }),
      payloads: calls,
    });
    expect(res.viaServer).toBeGreaterThanOrEqual(10);
    console.log(`codex hook latency via server (ms): median ${res.median}, calls ${JSON.stringify(res.ms)}`);
  });
});

/**
 * `retrace hook claude-code` fed the payloads of one whole Claude Code turn, in the order and shapes Claude
 * Code sends them, while the "agent" changes files and writes its transcript; then `retrace log` and
 * `retrace diff` are checked. The hook never fails the agent: bad payloads exit 0 and land in hook.log.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, makeWorkspace, runCli, tempDir, tempHome } from '../helpers';
import { line, text, toolResult, toolUse } from './claudeTranscript';

afterAll(cleanupTempDirs);

const SESSION = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

describe('retrace hook claude-code', () => {
  it('records a whole turn: prompt, Write, Bash, a Read that is ignored, Stop with the final text from the transcript', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'app.js': "console.log('hi');\n", 'README.md': '# app\n' });
    const config = tempDir('retrace-claude-');
    const project = join(config, 'projects', ws.replace(/[^a-zA-Z0-9]/g, '-'));
    mkdirSync(project, { recursive: true });
    const transcript = join(project, `${SESSION}.jsonl`);
    writeFileSync(transcript, '');
    const ctx = { sessionId: SESSION, cwd: ws };
    const t = (s: number) => new Date(Date.UTC(2025, 5, 1, 9, 0, s)).toISOString();
    const say = (...specs: Parameters<typeof line>[0][]) =>
      appendFileSync(transcript, specs.map((s) => line(s, ctx) + '\n').join(''));
    const common = { session_id: SESSION, transcript_path: transcript, cwd: ws, permission_mode: 'default' };
    const env = { CLAUDE_CONFIG_DIR: config, CLAUDE_PROJECT_DIR: undefined, RETRACE_HOOK_TRACE: '1' };
    const times: Record<string, number> = {};
    const hook = async (payload: Record<string, unknown>) => {
      const r = await runCli(['hook', 'claude-code'], {
        home,
        env,
        cwd: ws,
        input: JSON.stringify({ ...common, ...payload }),
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(''); // UserPromptSubmit's stdout would go to the model
      times[`${payload.hook_event_name}${payload.tool_name ? `:${payload.tool_name}` : ''}`] = r.ms;
      return r;
    };

    await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'Add a greeting module and use it' });
    say({ type: 'user', uuid: 'p1', parent: null, ts: t(0), content: 'Add a greeting module and use it' });
    say({
      type: 'assistant',
      uuid: 'a1',
      parent: 'p1',
      ts: t(1),
      apiId: 'm1',
      content: toolUse('toolu_w', 'Write', {
        file_path: join(ws, 'greet.js'),
        content: 'export const greet = (n) => `Hello ${n}`;\n',
      }),
    });
    writeFileSync(join(ws, 'greet.js'), 'export const greet = (n) => `Hello ${n}`;\n');
    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Write',
      tool_use_id: 'toolu_w',
      tool_input: { file_path: join(ws, 'greet.js'), content: 'export const greet = (n) => `Hello ${n}`;\n' },
      tool_response: {
        type: 'create',
        filePath: join(ws, 'greet.js'),
        content: 'export const greet = (n) => `Hello ${n}`;\n',
        structuredPatch: [],
      },
    });
    say({
      type: 'user',
      uuid: 'r1',
      parent: 'a1',
      ts: t(2),
      content: toolResult('toolu_w', 'File created successfully'),
      toolUseResult: { type: 'create', filePath: join(ws, 'greet.js') },
    });
    say({
      type: 'assistant',
      uuid: 'a2',
      parent: 'r1',
      ts: t(3),
      apiId: 'm2',
      content: toolUse('toolu_b', 'Bash', { command: "sed -i 's/hi/hello/' app.js", description: 'Use the greeting' }),
    });
    writeFileSync(join(ws, 'app.js'), "console.log('hello');\n"); // what the Bash command did — Claude Code's own rewind would miss it
    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_use_id: 'toolu_b',
      tool_input: { command: "sed -i 's/hi/hello/' app.js", description: 'Use the greeting' },
      tool_response: { stdout: '', stderr: '', interrupted: false, isImage: false },
    });
    say({
      type: 'user',
      uuid: 'r2',
      parent: 'a2',
      ts: t(4),
      content: toolResult('toolu_b', ''),
      toolUseResult: { stdout: '', stderr: '', interrupted: false },
    });
    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_use_id: 'toolu_r',
      tool_input: { file_path: join(ws, 'README.md') },
      tool_response: {},
    });
    say(
      { type: 'assistant', uuid: 'a3', parent: 'r2', ts: t(5), apiId: 'm3', content: text('Added greet.js') },
      {
        type: 'assistant',
        uuid: 'a4',
        parent: 'a3',
        ts: t(6),
        apiId: 'm3',
        content: text('and app.js now says hello.'),
      },
    );
    await hook({ hook_event_name: 'Stop', stop_hook_active: false });
    // Another Stop hook asked Claude to go on and it had nothing to add: Stop runs again for the same reply.
    await hook({ hook_event_name: 'Stop', stop_hook_active: true });

    const log = await cliJson<{
      session: string;
      messages: { id: string; role: string; text: string; hash: string | null }[];
    }>(['log', '--cwd', ws], { home });
    expect(log.session).toBe(SESSION);
    expect(log.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Add a greeting module and use it'],
      ['tool', 'Write greet.js'],
      ['tool', "Bash sed -i 's/hi/hello/' app.js"],
      ['assistant', 'Added greet.js\n\nand app.js now says hello.'],
    ]);
    const [prompt, write, bash, stop] = log.messages.map((m) => m.hash!);
    expect([prompt, write, bash, stop].every((h) => /^[0-9a-f]{40}$/.test(h!))).toBe(true);
    const diff = async (a: string, b: string) =>
      (await cliJson<{ files: { path: string; status: string }[] }>(['diff', a, b, '--cwd', ws], { home })).files.map(
        (f) => `${f.status} ${f.path}`,
      );
    expect(await diff(prompt!, write!)).toEqual(['added greet.js']);
    expect(await diff(write!, bash!)).toEqual(['modified app.js']);
    expect(await diff(bash!, stop!)).toEqual([]);
    const before = await cliJson<{ before: string; after: string }>(
      ['diff', write!, bash!, '--file', 'app.js', '--cwd', ws],
      { home },
    );
    expect(before).toMatchObject({ before: "console.log('hi');\n", after: "console.log('hello');\n" });
    const sessions = await cliJson<{ id: string; source: string; checkpoints: number }[]>(['sessions', '--cwd', ws], {
      home,
    });
    expect(sessions).toMatchObject([{ id: SESSION, source: 'claude-code', checkpoints: 4 }]);
    const hookLog = readFileSync(join(home, 'logs', 'hook.log'), 'utf8');
    expect(hookLog).not.toMatch(/ error /);
    expect(hookLog).toMatch(/ok PostToolUse .*\(not recorded\)/); // the Read

    // A conversation restore of a hooked session forks its transcript at the tool's result line.
    const res = await cliJson<{ resume: { transcript: string; sessionId: string } }>(
      ['restore', log.messages[1]!.id, '--conversation', '--cwd', ws],
      { home, env },
    );
    const forked = readFileSync(res.resume.transcript, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { uuid: string; sessionId: string });
    expect(forked.map((l) => l.uuid)).toEqual(['p1', 'a1', 'r1']);
    expect(forked.every((l) => l.sessionId === res.resume.sessionId)).toBe(true);
    // The prompt was recorded before Claude Code wrote its line: the fork finds that line by its text.
    const toPrompt = await cliJson<{ resume: { transcript: string } }>(
      ['restore', log.messages[0]!.id, '--conversation', '--cwd', ws],
      { home, env },
    );
    const promptFork = readFileSync(toPrompt.resume.transcript, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { uuid: string });
    expect(promptFork.map((l) => l.uuid)).toEqual(['p1']);
    // The cost of one call, as the agent waits for it (node start-up + lock + snapshot + commit), for the report.
    console.log(`hook cost per call (ms): ${JSON.stringify(times)}`);
  });

  it('parallel tool calls: hooks that run at once all record, one writer at a time, none lost', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    const env = { CLAUDE_PROJECT_DIR: undefined };
    const base = { session_id: 'parallel-1', cwd: ws, hook_event_name: 'PostToolUse', tool_name: 'Edit' };
    for (const f of ['a', 'b', 'c']) writeFileSync(join(ws, `${f}.txt`), `${f}${f}\n`);
    const runs = await Promise.all(
      ['a', 'b', 'c'].map((f) =>
        runCli(['hook', 'claude-code'], {
          home,
          env,
          input: JSON.stringify({
            ...base,
            tool_use_id: `toolu_${f}`,
            tool_input: { file_path: join(ws, `${f}.txt`), old_string: f, new_string: f + f },
          }),
        }),
      ),
    );
    expect(runs.map((r) => [r.code, r.stdout])).toEqual([
      [0, ''],
      [0, ''],
      [0, ''],
    ]);
    const log = await cliJson<{ messages: { text: string; hash: string | null }[] }>(['log', '--cwd', ws], { home });
    expect(log.messages.map((m) => m.text).sort()).toEqual(['Edit a.txt', 'Edit b.txt', 'Edit c.txt']);
    expect(new Set(log.messages.map((m) => m.hash)).size).toBe(3);
    expect(existsSync(join(home, 'logs', 'hook.log'))).toBe(false);
  });

  it('never fails the agent: malformed JSON, a protected folder, an unknown source all exit 0 and are logged', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const env = { CLAUDE_PROJECT_DIR: undefined };
    const bad = await runCli(['hook', 'claude-code'], { home, env, input: '{"hook_event_name": "UserPromptSubmit", ' });
    expect([bad.code, bad.stdout]).toEqual([0, '']);
    const root = await runCli(['hook', 'claude-code'], {
      home,
      env,
      input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's1', cwd: '/', prompt: 'hi' }),
    });
    expect([root.code, root.stdout]).toEqual([0, '']);
    const other = await runCli(['hook', 'cursor'], { home, env, input: '{}' });
    expect(other.code).toBe(0);
    const noSession = await runCli(['hook', 'claude-code'], {
      home,
      env,
      input: JSON.stringify({ hook_event_name: 'Stop', cwd: ws }),
    });
    expect(noSession.code).toBe(0);
    const lines = readFileSync(join(home, 'logs', 'hook.log'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/error \? \?: E_INVALID_INPUT the hook payload is not JSON/);
    expect(lines[1]).toMatch(/error UserPromptSubmit s1: E_PROTECTED_DIR/);
    expect(lines[2]).toMatch(/unknown hook source "cursor"/);
    expect(lines[3]).toMatch(/no usable session_id/);
    // Nothing was recorded anywhere for the workspace.
    expect(existsSync(join(home, 'workspaces'))).toBe(false);
  });
});

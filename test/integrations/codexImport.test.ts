/**
 * `retrace import codex`: synthetic rollouts for each record kind, imported through the CLI into real workspaces,
 * checkpoint contents read back from the shadow repository with git; and the real rollout in
 * ../shared/fixtures/codex (skipped plainly when that folder is absent).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  cliJson,
  errorCode,
  gitAt,
  makeWorkspace,
  REPO_ROOT,
  runCli,
  shadowDir,
  tempDir,
  tempHome,
} from '../helpers';
import type { MessageMeta, ToolCallDetail } from '../../src/shared/model';

afterAll(cleanupTempDirs);

interface LogMessage {
  role: string;
  text: string;
  hash: string | null;
  hidden: boolean;
  meta?: { tool?: string; reasoning?: boolean; reconstructed?: { files: string[]; missing: string[] } };
}
interface ImportResult {
  session: string;
  agent: string;
  messages: number;
  hidden: number;
  checkpoints: number;
  reconstructed: { files: string[]; missing: { path: string; reason: string }[] };
  patches: { applied: number; rebuilt: number; notApplied: number };
  warnings: string[];
}

/** A rollout line by line, as Codex writes them. */
class Rollout {
  private readonly lines: string[] = [];
  private t = Date.parse('2025-11-22T20:00:00Z');
  constructor(cwd: string, id = '019aad50-0000-7000-8000-000000000001') {
    this.add('session_meta', { id, cwd, cli_version: '0.60.1', originator: 'codex_cli_rs' });
    this.add('response_item', {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n</environment_context>` }],
    });
  }
  add(type: string, payload: object): this {
    this.t += 1000;
    this.lines.push(JSON.stringify({ timestamp: new Date(this.t).toISOString(), type, payload }));
    return this;
  }
  prompt(text: string): this {
    this.add('turn_context', { cwd: 'x', model: 'gpt-5.1-codex' });
    this.add('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    return this.add('event_msg', { type: 'user_message', message: text, images: [] });
  }
  reply(text: string): this {
    this.add('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
    return this.add('event_msg', { type: 'agent_message', message: text });
  }
  patch(id: string, body: string, ok = true): this {
    this.add('response_item', {
      type: 'custom_tool_call',
      status: 'completed',
      call_id: id,
      name: 'apply_patch',
      input: `*** Begin Patch\n${body}\n*** End Patch`,
    });
    const output = ok
      ? { output: 'Success. Updated the following files:\nM x\n', metadata: { exit_code: 0 } }
      : { output: 'apply_patch verification failed: Failed to find expected lines', metadata: { exit_code: 1 } };
    return this.add('response_item', { type: 'custom_tool_call_output', call_id: id, output: JSON.stringify(output) });
  }
  shell(id: string, command: string, output: string): this {
    this.add('response_item', {
      type: 'function_call',
      name: 'shell_command',
      arguments: JSON.stringify({ command, workdir: '.' }),
      call_id: id,
    });
    return this.add('response_item', {
      type: 'function_call_output',
      call_id: id,
      output: `Exit code: 0\nWall time: 0 seconds\nOutput:\n${output}`,
    });
  }
  write(dir: string): string {
    const file = join(dir, 'rollout-2025-11-22T20-00-00-019aad50.jsonl');
    writeFileSync(file, this.lines.join('\n') + '\n');
    return file;
  }
}

async function importRollout(r: Rollout, ws: string) {
  const home = tempHome();
  const file = r.write(tempDir('retrace-codex-'));
  const res = await cliJson<ImportResult>(['import', 'codex', file, '--cwd', ws], { home });
  const log = (await cliJson<{ messages: LogMessage[] }>(['log', '--all', '--cwd', ws], { home })).messages;
  const fileAt = (hash: string, path: string): string | null => {
    try {
      return gitAt(shadowDir(home, ws), ['show', `${hash}:${path}`]);
    } catch {
      return null;
    }
  };
  return { res, log, fileAt, home, file };
}

describe('Codex import: synthetic rollouts', () => {
  it('prompts, replies, shell calls and patches in order; every applied patch rebuilt exactly', async () => {
    const ws = makeWorkspace({ 'keep.txt': 'kept\n' });
    const r = new Rollout(ws)
      .prompt('Make a greeter')
      .shell('c1', 'ls', 'keep.txt\n')
      .patch('p1', '*** Add File: src/greet.js\n+export function greet(n) {\n+  return "hi " + n;\n+}')
      .patch(
        'p2',
        '*** Update File: src/greet.js\n@@ export function greet(n) {\n-  return "hi " + n;\n+  return `hello ${n}`;',
      )
      .reply('Done: src/greet.js greets.')
      .prompt('Rename it')
      .patch(
        'p3',
        '*** Update File: src/greet.js\n*** Move to: src/hello.js\n@@\n-export function greet(n) {\n+export function hello(n) {',
      )
      .patch('p4', '*** Delete File: keep.txt')
      .reply('Renamed.');
    const { res, log, fileAt } = await importRollout(r, ws);
    expect(res).toMatchObject({ agent: 'codex', hidden: 0, patches: { applied: 4, rebuilt: 4, notApplied: 0 } });
    expect(res.reconstructed.missing).toEqual([]);
    expect(log.map((m) => [m.role, m.text.split('\n')[0]])).toEqual([
      ['user', 'Make a greeter'],
      ['tool', '$ ls'],
      ['tool', 'apply_patch src/greet.js'],
      ['tool', 'apply_patch src/greet.js'],
      ['assistant', 'Done: src/greet.js greets.'],
      ['user', 'Rename it'],
      ['tool', 'apply_patch src/greet.js, src/hello.js'],
      ['tool', 'apply_patch keep.txt'],
      ['assistant', 'Renamed.'],
    ]);
    const patches = log.filter((m) => m.meta?.tool === 'apply_patch');
    expect(patches.every((m) => m.hash)).toBe(true);
    const [p1, p2, p3, p4] = patches.map((m) => m.hash!);
    expect(fileAt(p1!, 'src/greet.js')).toBe('export function greet(n) {\n  return "hi " + n;\n}\n');
    expect(fileAt(p2!, 'src/greet.js')).toBe('export function greet(n) {\n  return `hello ${n}`;\n}\n');
    expect(fileAt(p3!, 'src/greet.js')).toBeNull();
    expect(fileAt(p3!, 'src/hello.js')).toBe('export function hello(n) {\n  return `hello ${n}`;\n}\n');
    expect(fileAt(p3!, 'keep.txt')).toBe('kept\n');
    expect(fileAt(p4!, 'keep.txt')).toBeNull();
    // The first prompt's checkpoint is the state the person saw: nothing of the session yet.
    expect(fileAt(log[0]!.hash!, 'src/greet.js')).toBeNull();
    expect(res.warnings.some((w) => /shell command/.test(w))).toBe(true);
  });

  it('an update of a file older than the session is rebuilt by walking back from the folder as it is now', async () => {
    const ws = makeWorkspace({ 'app.js': 'const a = 1;\nconst b = 3;\n' });
    const r = new Rollout(ws)
      .prompt('Fix b')
      .patch('p1', '*** Update File: app.js\n@@\n const a = 1;\n-const b = 1;\n+const b = 2;')
      .patch('p2', '*** Update File: app.js\n@@\n-const b = 2;\n+const b = 3;');
    const { res, log, fileAt } = await importRollout(r, ws);
    expect(res.reconstructed.missing).toEqual([]);
    const [p1, p2] = log.filter((m) => m.meta?.tool === 'apply_patch').map((m) => m.hash!);
    expect(fileAt(log[0]!.hash!, 'app.js')).toBe('const a = 1;\nconst b = 1;\n');
    expect(fileAt(p1!, 'app.js')).toBe('const a = 1;\nconst b = 2;\n');
    expect(fileAt(p2!, 'app.js')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('reports, never guesses, what cannot be rebuilt; a failed patch is not a step', async () => {
    const ws = makeWorkspace({ 'other.txt': 'x\n' });
    const r = new Rollout(ws)
      .prompt('Edit notes')
      .patch('p0', '*** Update File: notes.txt\n@@\n-nope\n+yes', false)
      .patch('p1', '*** Update File: notes.txt\n@@\n-old\n+new');
    const { res, log } = await importRollout(r, ws);
    expect(res.patches).toEqual({ applied: 1, rebuilt: 0, notApplied: 1 });
    expect(res.reconstructed.missing).toEqual([{ path: 'notes.txt', reason: expect.stringMatching(/unknown/) }]);
    const [failed, missing] = log.filter((m) => m.meta?.tool === 'apply_patch');
    expect(failed!.hash).toBeNull();
    expect(failed!.text).toMatch(/verification failed/);
    expect(missing!.meta?.reconstructed).toEqual({ files: [], missing: ['notes.txt'] });
  });

  it('thread_rolled_back hides exactly the rolled-back turns', async () => {
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const r = new Rollout(ws)
      .prompt('one')
      .reply('first')
      .prompt('two')
      .reply('second')
      .add('event_msg', { type: 'thread_rolled_back', num_turns: 1 })
      .prompt('two, again')
      .reply('second, again');
    const { res, log } = await importRollout(r, ws);
    expect(res.hidden).toBe(2);
    expect(res.messages).toBe(4);
    expect(log.filter((m) => m.hidden).map((m) => m.text)).toEqual(['two', 'second']);
  });

  it('bad input: another format, a missing cwd, a truncated last line', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const dir = tempDir('retrace-codex-bad-');
    const claude = join(dir, 'claude.jsonl');
    writeFileSync(
      claude,
      JSON.stringify({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'hi' } }) + '\n',
    );
    const r1 = await runCli(['import', 'codex', claude, '--cwd', ws, '--json'], { home });
    expect(r1.code).toBe(1);
    expect(errorCode(r1)).toBe('E_IMPORT');
    const gone = new Rollout('/nowhere/at/all').prompt('hi').write(tempDir('retrace-codex-gone-'));
    const r2 = await runCli(['import', 'codex', gone, '--json'], { home });
    expect(errorCode(r2)).toBe('E_NOT_FOUND');
    expect(r2.stderr).toMatch(/--cwd/);
    const file = new Rollout(ws).prompt('hi').reply('hello').write(tempDir('retrace-codex-cut-'));
    writeFileSync(file, '{"timestamp":"2025-11-22T21:00:00Z","type":"event_msg","payload":{"type":"agent_mes', {
      flag: 'a',
    });
    const res = await cliJson<ImportResult>(['import', 'codex', file, '--cwd', ws], { home });
    expect(res.messages).toBe(2);
    expect(res.warnings.some((w) => /not JSON/.test(w))).toBe(true);
  });
});

const REAL = join(REPO_ROOT, '../shared/fixtures/codex/01-rtchess-v0.60.1/exported-session.jsonl');

describe('Codex import: the real rollout in ../shared/fixtures', () => {
  // Skipped, and named so, where ../shared/fixtures is absent.
  it.skipIf(!existsSync(REAL))(
    'every applied patch is rebuilt or reported with its reason (needs ../shared/fixtures)',
    async () => {
      const ws = tempDir('retrace-codex-real-');
      const home = tempHome();
      const res = await cliJson<ImportResult>(['import', 'codex', REAL, '--cwd', ws], { home, timeoutMs: 120_000 });
      expect(res.patches.applied).toBeGreaterThan(150);
      // A rebuilt step is one whose chunks applied cleanly to the file as the rollout itself built it.
      expect(res.patches.rebuilt).toBeGreaterThan(150);
      for (const m of res.reconstructed.missing) expect(m.reason).not.toBe('');
      const log = (await cliJson<{ messages: LogMessage[] }>(['log', '--cwd', ws], { home })).messages;
      // Every applied patch is accounted for: each of its files rebuilt or listed as missing with a reason.
      const applied = log.filter((m) => m.meta?.tool === 'apply_patch' && m.meta.reconstructed);
      expect(applied).toHaveLength(res.patches.applied);
      for (const m of applied) {
        const r = m.meta!.reconstructed!;
        expect(r.files.length + r.missing.length).toBeGreaterThan(0);
      }
      expect(log.filter((m) => m.meta?.tool === 'apply_patch' && !m.meta.reconstructed).every((m) => !m.hash)).toBe(
        true,
      );
      expect(log[0]).toMatchObject({ role: 'user' });
      expect(log[0]!.text).toMatch(/chess/);
      expect(log.filter((m) => m.role === 'user').length).toBe(54);
    },
  );
});

describe('Codex message details (issue 12)', () => {
  it('model, token counts, reasoning, and each call with its input and output', async () => {
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const counts = (last: number, total: number) => ({
      type: 'token_count',
      info: {
        total_token_usage: { total_tokens: total },
        last_token_usage: {
          input_tokens: last - 10,
          cached_input_tokens: 100,
          output_tokens: 10,
          reasoning_output_tokens: 4,
          total_tokens: last,
        },
      },
    });
    const r = new Rollout(ws)
      .prompt('List and fix')
      // Codex writes a response's token_count before its items, then once more after them.
      .add('event_msg', counts(500, 500))
      .add('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Look first.' }] })
      .shell('c1', 'ls -la', '\u001b[1;34ma.txt\u001b[0m\n') // colour codes, as `ls --color=always` prints
      .add('event_msg', counts(500, 500))
      .add('event_msg', counts(700, 1200))
      .patch('p1', '*** Update File: a.txt\n@@\n-a\n+b')
      .add('response_item', { type: 'function_call', name: 'view_image', arguments: '{"path":"a.png"}', call_id: 'v1' })
      .add('response_item', { type: 'function_call_output', call_id: 'v1', output: 'shown' })
      .reply('Fixed.');
    const { log } = await importRollout(r, ws);
    type Meta = MessageMeta & { toolCalls?: ToolCallDetail[] };
    const meta = (i: number) => (log[i] as { meta?: Meta }).meta;
    expect(log.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'tool', 'assistant']);
    expect(meta(1)).toMatchObject({
      reasoning: true,
      model: 'gpt-5.1-codex',
      usage: { input: 490, cacheRead: 100, output: 10, reasoning: 4, total: 500 },
    });
    expect(meta(2)!.toolCalls).toEqual([
      {
        id: 'c1',
        name: 'shell',
        input: 'ls -la',
        output: 'Exit code: 0\nWall time: 0 seconds\nOutput:\na.txt\n', // without the colour codes
        exitCode: 0,
      },
    ]);
    expect(log[2]!.text).toBe('$ ls -la\n\nExit code: 0\nWall time: 0 seconds\nOutput:\na.txt');
    expect(meta(2)!.usage).toBeUndefined(); // the repeated count is not counted twice
    expect(meta(3)!.usage).toMatchObject({ total: 700 });
    expect(meta(3)!.toolCalls![0]).toMatchObject({ id: 'p1', name: 'apply_patch' });
    expect(meta(3)!.toolCalls![0]!.patch).toBe('*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch');
    expect(meta(4)!.toolCalls).toEqual([
      { id: 'v1', name: 'view_image', input: '{\n  "path": "a.png"\n}', output: 'shown' },
    ]);
    expect(meta(5)).toMatchObject({ model: 'gpt-5.1-codex' });
  });

  it.skipIf(!existsSync(REAL))(
    'the real rollout: replies name their model; requests carry their token counts',
    async () => {
      const ws = makeWorkspace({});
      const home = tempHome();
      await cliJson(['import', 'codex', REAL, '--cwd', ws], { home });
      const log = (
        await cliJson<{ messages: { role: string; meta?: MessageMeta }[] }>(['log', '--all', '--cwd', ws], { home })
      ).messages;
      const fromModel = log.filter((m) => m.role !== 'user' && m.role !== 'system');
      expect(fromModel.every((m) => m.meta?.model === 'gpt-5.1-codex-max')).toBe(true);
      expect(fromModel.filter((m) => m.meta?.usage?.total).length).toBeGreaterThan(100);
      const tools = log.filter((m) => m.role === 'tool');
      expect(tools.every((m) => m.meta?.toolCalls?.length === 1)).toBe(true);
    },
  );
  if (!existsSync(REAL)) it.skip('skipped: ../shared/fixtures absent', () => {});
});

describe('import auto, and a file given to the wrong importer', () => {
  it('auto picks the Codex importer; claude-code refuses a rollout in one line, writing nothing', async () => {
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const home = tempHome();
    const file = new Rollout(ws).prompt('hi').reply('hello').write(tempDir('retrace-codex-auto-'));
    const wrong = await runCli(['import', 'claude-code', file, '--cwd', ws, '--json'], { home });
    expect(wrong.code).toBe(1);
    expect(errorCode(wrong)).toBe('E_IMPORT');
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    expect(wrong.stderr).toMatch(/looks like a Codex rollout, not a Claude Code transcript/);
    expect(await cliJson<unknown[]>(['sessions', '--cwd', ws], { home })).toEqual([]);
    const res = await cliJson<ImportResult>(['import', 'auto', file, '--cwd', ws], { home });
    expect(res).toMatchObject({ agent: 'codex', messages: 2 });
    const sessions = await cliJson<{ agent: string }[]>(['sessions', '--cwd', ws], { home });
    expect(sessions.map((s) => s.agent)).toEqual(['codex']);
    const unknown = join(tempDir('retrace-codex-unknown-'), 'x.jsonl');
    writeFileSync(unknown, '{"kind":"log"}\n');
    const r = await runCli(['import', 'auto', unknown, '--cwd', ws, '--json'], { home });
    expect(errorCode(r)).toBe('E_IMPORT');
    expect(r.stderr).toMatch(/looks like JSON lines of an unknown kind/);
  });
});

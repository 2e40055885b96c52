/**
 * `retrace import gemini`: synthetic chats of both shapes (legacy JSON, current JSONL with $set and $rewindTo),
 * imported through the CLI into real workspaces, checkpoint contents read back with git; and the real chats in
 * ../shared/fixtures/gemini (skipped, and named so, where that folder is absent).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
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
  meta?: {
    tool?: string;
    sourceId?: string;
    reasoning?: boolean;
    reconstructed?: { files: string[]; missing: string[] };
  };
}
interface ImportResult {
  session: string;
  agent: string;
  messages: number;
  hidden: number;
  checkpoints: number;
  reconstructed: { files: string[]; missing: { path: string; reason: string }[] };
  edits: { applied: number; rebuilt: number };
  warnings: string[];
}

let clock = Date.parse('2025-11-21T20:00:00Z');
const ts = (): string => new Date((clock += 1000)).toISOString();
const user = (id: string, content: string) => ({ id, timestamp: ts(), type: 'user', content });
const gemini = (id: string, content: string, toolCalls: object[] = [], thoughts: object[] = []) => ({
  id,
  timestamp: ts(),
  type: 'gemini',
  content,
  toolCalls,
  thoughts,
  model: 'gemini-2.5-pro',
});
const edit = (root: string, rel: string, before: string | null, after: string, status = 'success') => ({
  id: `call-${rel}-${clock}`,
  name: before === null ? 'write_file' : 'replace',
  args: { file_path: join(root, rel) },
  status,
  resultDisplay: {
    fileDiff: `--- ${rel}\n+++ ${rel}\n`,
    fileName: rel,
    filePath: join(root, rel),
    originalContent: before,
    newContent: after,
    isNewFile: before === null,
  },
});

async function importChat(file: string, ws: string) {
  const home = tempHome();
  const res = await cliJson<ImportResult>(['import', 'gemini', file, '--cwd', ws], { home });
  const log = (await cliJson<{ messages: LogMessage[] }>(['log', '--all', '--cwd', ws], { home })).messages;
  const fileAt = (hash: string, path: string): string | null => {
    try {
      return gitAt(shadowDir(home, ws), ['show', `${hash}:${path}`]);
    } catch {
      return null;
    }
  };
  return { res, log, fileAt, home };
}

describe('Gemini import: synthetic chats', () => {
  it('legacy JSON: messages in order, thoughts kept, every successful edit rebuilt exactly', async () => {
    const ws = makeWorkspace({ 'app.py': 'print(1)\n' });
    const chat = {
      sessionId: '15eaa698-0000-4000-8000-000000000001',
      projectHash: createHash('sha256').update(ws).digest('hex'),
      startTime: ts(),
      lastUpdated: ts(),
      messages: [
        user('u1', 'Print two, and add a helper'),
        gemini(
          'g1',
          'Editing app.py.',
          [edit(ws, 'app.py', 'print(1)\n', 'print(2)\n')],
          [{ subject: 'Plan', description: 'change the literal' }],
        ),
        gemini('g2', '', [edit(ws, 'lib/help.py', null, 'def h():\n    return 1\n')]),
        gemini('g3', 'A failed edit changes nothing.', [edit(ws, 'app.py', 'print(2)\n', 'oops\n', 'error')]),
        { id: 'i1', timestamp: ts(), type: 'error', content: 'Quota exceeded' },
        gemini('g4', 'Done.'),
      ],
    };
    const file = join(tempDir('retrace-gemini-'), 'session-2025-11-21T20-00-15eaa698.json');
    writeFileSync(file, JSON.stringify(chat));
    const { res, log, fileAt } = await importChat(file, ws);
    expect(res).toMatchObject({ agent: 'gemini', hidden: 0, edits: { applied: 2, rebuilt: 2 } });
    expect(res.warnings.filter((w) => /another folder/.test(w))).toEqual([]);
    expect(log.map((m) => [m.role, m.text.split('\n')[0]])).toEqual([
      ['user', 'Print two, and add a helper'],
      ['assistant', 'Editing app.py.'],
      ['assistant', 'Plan: change the literal'],
      ['tool', expect.stringMatching(/^replace /)],
      ['tool', expect.stringMatching(/^write_file /)],
      ['assistant', 'A failed edit changes nothing.'],
      ['tool', expect.stringMatching(/^replace /)],
      ['system', 'error: Quota exceeded'],
      ['assistant', 'Done.'],
    ]);
    const [e1, e2, failed] = log.filter((m) => m.role === 'tool');
    expect(fileAt(log[0]!.hash!, 'app.py')).toBe('print(1)\n');
    expect(fileAt(e1!.hash!, 'app.py')).toBe('print(2)\n');
    expect(fileAt(e1!.hash!, 'lib/help.py')).toBeNull();
    expect(fileAt(e2!.hash!, 'lib/help.py')).toBe('def h():\n    return 1\n');
    expect(failed!.hash).toBeNull();
  });

  it('JSONL: the last record per id wins, $set updates, $rewindTo hides that message and all after it', async () => {
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const lines = [
      { sessionId: '15eaa698-0000-4000-8000-000000000002', projectHash: 'x', startTime: ts() },
      user('u1', 'first'),
      gemini('g1', 'draft'),
      gemini('g1', 'final answer'),
      user('u2', 'abandoned prompt'),
      gemini('g2', 'abandoned reply', [edit(ws, 'a.txt', 'a\n', 'b\n')]),
      { $rewindTo: 'u2' },
      { $set: { summary: 'whatever' } },
      user('u3', 'second'),
      gemini('g3', 'kept'),
    ];
    const file = join(tempDir('retrace-gemini-'), 'session-x.jsonl');
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const { res, log } = await importChat(file, ws);
    expect(res.hidden).toBe(3);
    expect(log.filter((m) => !m.hidden).map((m) => m.text.split('\n')[0])).toEqual([
      'first',
      'final answer',
      'second',
      'kept',
    ]);
    expect(log.filter((m) => m.hidden).map((m) => m.text.split('\n')[0])).toEqual([
      'abandoned prompt',
      'abandoned reply',
      expect.stringMatching(/^replace /),
    ]);
    expect(res.warnings.some((w) => /another folder/.test(w))).toBe(true); // projectHash "x" is not this folder's
  });

  it('bad input: no --cwd, not JSON, an unknown $rewindTo, a truncated last line', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const dir = tempDir('retrace-gemini-bad-');
    const ok = join(dir, 'ok.json');
    writeFileSync(ok, JSON.stringify({ sessionId: 's-1', messages: [user('u1', 'hi')] }));
    expect(errorCode(await runCli(['import', 'gemini', ok, '--json'], { home, cwd: ws }))).toBe('E_IMPORT');
    const notJson = join(dir, 'bad.json');
    writeFileSync(notJson, '{"sessionId": "s-2", "messages": [');
    const r = await runCli(['import', 'gemini', notJson, '--cwd', ws, '--json'], { home });
    expect(r.code).toBe(1);
    expect(errorCode(r)).toBe('E_IMPORT');
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(
      cut,
      [
        JSON.stringify({ sessionId: 's-3' }),
        JSON.stringify(user('u1', 'hi')),
        JSON.stringify({ $rewindTo: 'nope' }),
        '{"id":"g1","ty',
      ].join('\n'),
    );
    const res = await cliJson<ImportResult>(['import', 'gemini', cut, '--cwd', ws], { home });
    expect(res.messages).toBe(1);
    expect(res.warnings.some((w) => /unknown message nope/.test(w))).toBe(true);
    expect(res.warnings.some((w) => /not JSON/.test(w))).toBe(true);
  });
});

const REAL = join(REPO_ROOT, '../shared/fixtures/gemini/01-mgemini-legacy-json');

describe('Gemini import: the real chats in ../shared/fixtures', () => {
  it.skipIf(!existsSync(REAL))(
    'every message in order, tool calls with their results (needs ../shared/fixtures)',
    async () => {
      for (const name of readdirSync(REAL).filter((f) => f.endsWith('.json'))) {
        const ws = tempDir('retrace-gemini-real-');
        const { res, log } = await importChat(join(REAL, name), ws);
        expect(res.hidden).toBe(0);
        expect(log.length).toBeGreaterThan(0);
        expect(log[0]!.role).toBe('user');
        const ids = log.filter((m) => m.meta?.sourceId && m.role !== 'tool').map((m) => m.meta!.sourceId);
        expect(new Set(ids).size).toBe(ids.length);
        // These chats hold no edit tool calls; any that did would each be rebuilt.
        expect(res.edits.applied).toBe(res.edits.rebuilt);
      }
    },
  );
});

describe('Gemini message details (issue 12)', () => {
  it('model and tokens on the reply, thoughts as their own message, each call with its input, output and diff', async () => {
    const ws = makeWorkspace({ 'app.py': 'print(1)\n' });
    const reply = {
      ...gemini(
        'g1',
        'Checking, then fixing.',
        [
          {
            id: 'run-1',
            name: 'run_shell_command',
            args: { command: 'python app.py', description: 'Run it' },
            status: 'success',
            result: [{ functionResponse: { id: 'run-1', name: 'run_shell_command', response: { output: '1\n' } } }],
            resultDisplay: '1',
          },
          {
            ...edit(ws, 'app.py', 'print(1)\n', 'print(2)\n'),
            args: { file_path: join(ws, 'app.py'), old_string: 'print(1)', new_string: 'print(2)' },
          },
        ],
        [{ subject: 'Plan', description: 'Run, then edit.' }],
      ),
      tokens: { input: 900, output: 40, cached: 300, thoughts: 25, tool: 0, total: 965 },
    };
    const toolOnly = {
      ...gemini('g2', '', [
        {
          id: 'read-1',
          name: 'read_file',
          args: { file_path: 'missing.txt' },
          status: 'error',
          result: [{ functionResponse: { id: 'read-1', name: 'read_file', response: { error: 'File not found' } } }],
          resultDisplay: 'File not found',
        },
      ]),
      model: 'gemini-2.5-flash',
      tokens: { input: 1000, output: 5, total: 1005 },
    };
    const file = join(tempDir('retrace-gemini-details-'), 'session-details.json');
    writeFileSync(
      file,
      JSON.stringify({ sessionId: 's-details', messages: [user('u1', 'Fix app.py'), reply, toolOnly] }),
    );
    const { log } = await importChat(file, ws);
    type Meta = MessageMeta & { toolCalls?: ToolCallDetail[] };
    const meta = (i: number) => (log[i] as { meta?: Meta }).meta!;
    expect(log.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant', 'tool', 'tool', 'tool']);
    // Each call's row reads as the hook records it: the command, else the file, else the arguments.
    expect([3, 4, 5].map((i) => log[i]!.text.split('\n')[0])).toEqual([
      'run_shell_command python app.py',
      'replace app.py',
      'read_file missing.txt',
    ]);
    expect(meta(1)).toMatchObject({
      model: 'gemini-2.5-pro',
      usage: { input: 900, output: 40, cacheRead: 300, reasoning: 25, total: 965 },
    });
    expect(meta(2)).toMatchObject({ reasoning: true });
    expect(meta(2).usage).toBeUndefined();
    expect(meta(3).toolCalls).toEqual([
      { id: 'run-1', name: 'run_shell_command', input: 'python app.py', output: '1\n' },
    ]);
    const editCall = meta(4).toolCalls![0]!;
    expect(editCall).toMatchObject({ name: 'replace', patch: '--- app.py\n+++ app.py\n' });
    expect(JSON.parse(editCall.input!)).toMatchObject({ old_string: 'print(1)', new_string: 'print(2)' });
    // A reply that is only a call: its model and tokens go on that call's message.
    expect(meta(5)).toMatchObject({ model: 'gemini-2.5-flash', usage: { input: 1000, output: 5, total: 1005 } });
    expect(meta(5).toolCalls).toEqual([
      {
        id: 'read-1',
        name: 'read_file',
        input: '{\n  "file_path": "missing.txt"\n}',
        output: 'File not found',
        isError: true,
      },
    ]);
  });

  it.skipIf(!existsSync(REAL))(
    'the real chats: replies name their model and tokens (needs ../shared/fixtures)',
    async () => {
      for (const name of readdirSync(REAL).filter((f) => f.endsWith('.json'))) {
        const ws = tempDir('retrace-gemini-real-');
        const { log } = await importChat(join(REAL, name), ws);
        const withModel = log.filter((m) => (m.meta as MessageMeta | undefined)?.model);
        expect(withModel.length).toBeGreaterThan(0);
        expect(withModel.every((m) => (m.meta as MessageMeta).usage?.total)).toBe(true);
        const tools = log.filter((m) => m.role === 'tool');
        expect(tools.every((m) => (m.meta as MessageMeta).toolCalls?.[0]?.output !== undefined)).toBe(true);
      }
    },
  );
  if (!existsSync(REAL)) it.skip('skipped: ../shared/fixtures absent', () => {});
});

/** `retrace search` and `retrace label` through the real CLI: CLI.md's shapes, labels in `log`, and errors. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, errorCode, makeWorkspace, runCli, tempHome } from '../helpers';

let home: string;
let root: string;
const opts = () => ({ home, cwd: root });
let prompt: { session: string; message: string; hash: string | null };
let edit: { session: string; message: string; hash: string };

beforeAll(async () => {
  home = tempHome();
  root = makeWorkspace({ 'README.md': '# app\n' });
  prompt = await cliJson(['message', '--role', 'user', '--text', 'Add a Parser please', '--session', 's1'], opts());
  mkdirSync(join(root, 'lib'), { recursive: true });
  writeFileSync(join(root, 'lib/parser.ts'), 'export {};\n');
  edit = await cliJson(['message', '--role', 'tool', '--text', 'Write', '--checkpoint', '--session', 's1'], opts());
  await cliJson(['message', '--role', 'user', '--text', 'unrelated', '--session', 's2'], opts());
});
afterAll(cleanupTempDirs);

describe('retrace search', () => {
  it('gives {hits: [{session, message, ts, role, snippet, hash, paths}]} for text and path matches', async () => {
    const res = await cliJson<{ hits: Record<string, unknown>[]; total: number }>(['search', 'PARSER'], opts());
    expect(res.hits.map((h) => Object.keys(h))).toEqual([
      ['session', 'message', 'ts', 'role', 'snippet', 'hash', 'paths'],
      ['session', 'message', 'ts', 'role', 'snippet', 'hash', 'paths'],
    ]);
    expect(res.hits).toMatchObject([
      { session: 's1', message: prompt.message, role: 'user', snippet: 'Add a Parser please', hash: null, paths: [] },
      {
        session: 's1',
        message: edit.message,
        role: 'tool',
        snippet: 'Write',
        hash: edit.hash,
        paths: ['lib/parser.ts'],
      },
    ]);
    expect(res.total).toBe(2);
    expect(new Date(res.hits[0]!.ts as string).toISOString()).toBe(res.hits[0]!.ts);
  });

  it('--session and --limit', async () => {
    expect((await cliJson<{ hits: unknown[] }>(['search', 'parser', '--session', 's2'], opts())).hits).toEqual([]);
    const limited = await cliJson<{ hits: unknown[]; total: number }>(['search', 'parser', '--limit', '1'], opts());
    expect(limited.hits).toHaveLength(1);
    expect(limited.total).toBe(2);
  });

  it('errors: no query, an empty one, a bad limit (usage, exit 2); an unknown session (exit 1)', async () => {
    for (const args of [
      ['search'],
      ['search', '  '],
      ['search', 'x', '--limit', '0'],
      ['search', 'x', '--limit', 'ten'],
    ]) {
      const r = await runCli([...args, '--json'], opts());
      expect([r.code, errorCode(r)], args.join(' ')).toEqual([2, 'E_USAGE']);
      expect(r.stderr).toMatch(/^retrace: /);
    }
    const r = await runCli(['search', 'x', '--session', 'nope', '--json'], opts());
    expect([r.code, errorCode(r)]).toEqual([1, 'E_UNKNOWN_SESSION']);
  });
});

describe('retrace label', () => {
  it('labels a checkpoint (shown in log as "label", found by search), then removes it', async () => {
    const set = await cliJson(['label', edit.hash.slice(0, 8), 'parser in place'], opts());
    expect(set).toEqual({ hash: edit.hash, message: edit.message, session: 's1', label: 'parser in place' });
    const log = await cliJson<{ messages: Record<string, unknown>[] }>(['log', '--session', 's1'], opts());
    expect(log.messages.map((m) => m.label)).toEqual([undefined, 'parser in place']);
    const found = await cliJson<{ hits: Record<string, unknown>[] }>(['search', 'IN PLACE'], opts());
    expect(found.hits).toMatchObject([{ message: edit.message, label: 'parser in place' }]);
    const human = await runCli(['log', '--session', 's1'], opts());
    expect(human.stdout).toContain('«parser in place»');

    expect(await cliJson(['label', edit.message, '--remove'], opts())).toMatchObject({ label: null });
    const after = await cliJson<{ messages: Record<string, unknown>[] }>(['log', '--session', 's1'], opts());
    expect(after.messages.some((m) => 'label' in m)).toBe(false);
  });

  it('errors: text and --remove together or neither (usage), empty or long text, unknown checkpoint', async () => {
    const cases: [string[], number, string][] = [
      [['label', edit.hash], 2, 'E_USAGE'],
      [['label', edit.hash, 'x', '--remove'], 2, 'E_USAGE'],
      [['label', edit.hash, ''], 1, 'E_INVALID_INPUT'],
      [['label', edit.hash, 'x'.repeat(201)], 1, 'E_INVALID_INPUT'],
      [['label', 'abcdef0123', 'x'], 1, 'E_UNKNOWN_CHECKPOINT'],
      [['label', prompt.message, 'x'], 1, 'E_UNKNOWN_CHECKPOINT'],
    ];
    for (const [args, code, err] of cases) {
      const r = await runCli([...args, '--json'], opts());
      expect([r.code, errorCode(r)], args.join(' ').slice(0, 60)).toEqual([code, err]);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

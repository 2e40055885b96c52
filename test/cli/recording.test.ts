import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, runCli, tempDir, tempHome } from '../helpers';
import { makeUserProject, QUOTED_NAME, UNICODE_NAME } from './fixture';

const HEX40 = /^[0-9a-f]{40}$/;
let home: string;
let root: string;
const opts = () => ({ home, cwd: root });

beforeAll(() => {
  home = tempHome();
  root = makeUserProject();
});
afterAll(cleanupTempDirs);

describe('recording and browsing', () => {
  it('message, checkpoint, sessions and log have the contract shapes', async () => {
    const m = await cliJson(['message', '--role', 'user', '--text', 'Add a feature'], opts());
    expect(Object.keys(m).sort()).toEqual(['hash', 'message', 'session']);
    expect(m.hash).toBeNull();
    expect(m.message).toMatch(/^m_/);
    const session = m.session as string;

    const c1 = await cliJson(['checkpoint', '--text', 'first'], opts());
    expect(Object.keys(c1).sort()).toEqual(['changed', 'hash', 'message', 'session']);
    expect(c1.session).toBe(session); // the most recent session
    expect(c1.hash).toMatch(HEX40);
    expect((c1.changed as { added: number }).added).toBeGreaterThan(5);

    // Nothing changed: still a checkpoint, its own commit.
    const c2 = await cliJson(['checkpoint'], opts());
    expect(c2.hash).toMatch(HEX40);
    expect(c2.hash).not.toBe(c1.hash);
    expect(c2.changed).toEqual({ added: 0, modified: 0, deleted: 0 });

    writeFileSync(join(root, 'src/app.ts'), 'export const app = 2;\n');
    const m2 = await cliJson(['message', '--role', 'assistant', '--text', 'Edited app', '--checkpoint'], opts());
    expect(m2.hash).toMatch(HEX40);

    const sessions = await cliJson<Record<string, unknown>[]>(['sessions'], opts());
    expect(sessions).toHaveLength(1);
    // CLI.md's fields, plus two additive ones: the agent (issue 13) and what forgetting it would free (issue 14).
    expect(Object.keys(sessions[0]!).sort()).toEqual([
      'agent',
      'bytes',
      'checkpoints',
      'createdAt',
      'id',
      'messages',
      'source',
      'title',
      'updatedAt',
    ]);
    expect(sessions[0]).toMatchObject({
      id: session,
      messages: 4,
      checkpoints: 3,
      source: 'cli',
      agent: 'cli',
      title: 'Add a feature',
    });

    const log = await cliJson<{ session: string; messages: Record<string, unknown>[] }>(['log'], opts());
    expect(log.session).toBe(session);
    expect(log.messages.map((x) => x.role)).toEqual(['user', 'system', 'system', 'assistant']);
    expect(Object.keys(log.messages[0]!).sort()).toEqual(['hash', 'hidden', 'id', 'role', 'text', 'ts']);
    expect(log.messages[3]).toMatchObject({ id: m2.message, hash: m2.hash, hidden: false, text: 'Edited app' });
  });

  it('--session with a new id creates that session; the most recent one is used without it', async () => {
    const a = await cliJson(['checkpoint', '--session', 'feature-x'], opts());
    expect(a.session).toBe('feature-x');
    const b = await cliJson(['message', '--role', 'tool', '--text', 'ran tests'], opts());
    expect(b.session).toBe('feature-x');
    const log = await cliJson<{ messages: unknown[] }>(['log', '--session', 'feature-x'], opts());
    expect(log.messages).toHaveLength(2);
  });

  it('diff lists files with statuses, and --file gives both sides as text (unicode and quoted names too)', async () => {
    const c = await cliJson(['checkpoint', '--session', 'diffs'], opts());
    writeFileSync(join(root, UNICODE_NAME), 'unicode changed\n');
    writeFileSync(join(root, QUOTED_NAME), 'quoted changed\n');
    writeFileSync(join(root, 'assets/image.png'), Buffer.from([0, 1, 2, 3, 0, 0xff]));
    writeFileSync(join(root, 'brand-new.txt'), 'new\n');
    const d = await cliJson<{ from: string; to: string; files: Record<string, unknown>[] }>(
      ['diff', c.hash as string],
      opts(),
    );
    expect(d.from).toBe(c.hash);
    expect(d.to).toBe('working');
    const byPath = new Map(d.files.map((f) => [f.path, f]));
    expect(byPath.get(UNICODE_NAME)).toMatchObject({ status: 'modified', binary: false, insertions: 1, deletions: 1 });
    expect(byPath.get(QUOTED_NAME)).toMatchObject({ status: 'modified' });
    expect(byPath.get('assets/image.png')).toMatchObject({ status: 'modified', binary: true });
    expect(byPath.get('brand-new.txt')).toMatchObject({ status: 'added', insertions: 1 });
    expect([...byPath.keys()].some((p) => String(p).startsWith('dist/') || String(p).startsWith('node_modules/'))).toBe(
      false,
    );

    const f = await cliJson(['diff', c.hash as string, '--file', UNICODE_NAME], opts());
    expect(f).toEqual({ path: UNICODE_NAME, binary: false, before: 'unicode\n', after: 'unicode changed\n' });
    const added = await cliJson(['diff', c.hash as string, '--file', 'brand-new.txt'], opts());
    expect(added).toMatchObject({ before: null, after: 'new\n' });
    const bin = await cliJson(['diff', c.hash as string, '--file', 'assets/image.png'], opts());
    expect(bin).toEqual({ path: 'assets/image.png', binary: true, before: null, after: null });

    // Two checkpoints, named by prefix and by message id.
    const c2 = await cliJson(['checkpoint', '--session', 'diffs'], opts());
    const d2 = await cliJson<{ files: { path: string }[] }>(
      ['diff', (c.hash as string).slice(0, 7), c2.message as string],
      opts(),
    );
    expect(d2.files.map((x) => x.path).sort()).toEqual(
      ['assets/image.png', 'brand-new.txt', QUOTED_NAME, UNICODE_NAME].sort(),
    );
  });

  it('checkpoint --json lists files it could not capture (a name that is not valid UTF-8)', async () => {
    const ws = tempDir('retrace-ws-');
    writeFileSync(join(ws, 'ok.txt'), 'ok\n');
    writeFileSync(Buffer.concat([Buffer.from(`${ws}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.bin')]), 'raw\n');
    const c = await cliJson<{ notCaptured?: { path: string; reason: string }[] }>(['checkpoint'], { home, cwd: ws });
    expect(c.notCaptured?.map((n) => n.reason)).toEqual(['unsupported-name']);
    const m = await cliJson<{ notCaptured?: unknown[] }>(['message', '--role', 'tool', '--text', 't', '--checkpoint'], {
      home,
      cwd: ws,
    });
    expect(m.notCaptured).toHaveLength(1);
  });

  it('common flags may come before the command; --cwd names the workspace from anywhere', async () => {
    const st = await cliJson<{ workspace: string }>(['--cwd', root, 'status'], { home });
    expect(st.workspace).toBe(root);
  });

  it('prints short human lines without --json', async () => {
    const r = await runCli(['checkpoint', '--session', 'human'], opts());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^checkpoint [0-9a-f]{7} in human/);
    const s = await runCli(['status'], opts());
    expect(s.stdout).toContain(`workspace  ${root}`);
  });
});

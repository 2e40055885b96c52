/**
 * Every bad input of PRODUCT.md I7 and CLI.md: its code, one `retrace: ` line on stderr, the exit code, and
 * nothing half-done (no data written for a refused folder).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, REPO_ROOT, runCli, tempDir, tempHome, type CliResult } from '../helpers';
import { makeUserProject } from './fixture';

let home: string;
let root: string;
beforeAll(() => {
  home = tempHome();
  root = makeUserProject();
});
afterAll(cleanupTempDirs);

function expectFailure(r: CliResult, code: string, exit: number): void {
  expect(r.code, r.stderr).toBe(exit);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^retrace: \S/);
  expect(r.json).toEqual({ error: { code, message: expect.any(String) } });
  expect((r.json as { error: { message: string } }).error.message).not.toContain('\n');
}

const usage: [string, string[]][] = [
  ['unknown command', ['frobnicate']],
  ['unknown flag', ['checkpoint', '--frob']],
  ['missing --text', ['message', '--role', 'user']],
  ['missing --role', ['message', '--text', 'x']],
  ['bad role', ['message', '--role', 'robot', '--text', 'x']],
  ['flag without its value', ['checkpoint', '--session']],
  ['restore without target', ['restore', '--code']],
  ['restore without mode', ['restore', 'abcdef1']],
  ['restore with two modes', ['restore', 'abcdef1', '--code', '--both']],
  ['restore --file with --conversation', ['restore', 'abcdef1', '--conversation', '--file', 'a']],
  ['diff without FROM', ['diff']],
  ['too many arguments', ['status', 'extra']],
  ['boolean with a value', ['checkpoint', '--json=yes']],
];

describe('usage errors: exit 2, E_USAGE', () => {
  for (const [what, args] of usage) {
    it(what, async () => expectFailure(await runCli([...args, '--json'], { home, cwd: root }), 'E_USAGE', 2));
  }
  it('without --json stdout stays empty', async () => {
    const r = await runCli(['frobnicate'], { home, cwd: root });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^retrace: unknown command: frobnicate/);
  });
  it('--help is not an error', async () => {
    const r = await runCli(['--help'], { home });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('checkpoint');
    expect((await runCli(['restore', '--help'], { home })).stdout).toMatch(/^usage: retrace restore TARGET/);
  });
  it('--version prints the version of package.json and the build', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await runCli(['--version'], { home });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(
      new RegExp(`^retrace ${version.replace(/\./g, '\\.')} \\(build [0-9a-z]+-[0-9a-f]{8}\\)\n$`),
    );
    expect((await runCli(['--version', '--json'], { home })).json).toEqual({ version, build: expect.any(String) });
  });
});

describe('bad folders: exit 1, nothing written', () => {
  it('E_NOT_FOUND for a missing folder', async () => {
    const h = tempHome();
    expectFailure(await runCli(['checkpoint', '--json', '--cwd', join(root, 'nope')], { home: h }), 'E_NOT_FOUND', 1);
    expect(existsSync(join(h, 'workspaces')) ? readdirSync(join(h, 'workspaces')) : []).toEqual([]);
  });
  it('E_NOT_A_DIRECTORY for a file', async () => {
    expectFailure(
      await runCli(['status', '--json', '--cwd', join(root, 'README.md')], { home }),
      'E_NOT_A_DIRECTORY',
      1,
    );
  });
  it('E_PROTECTED_DIR for the home folder (also with a trailing slash) and the filesystem root', async () => {
    const fakeHome = tempDir('retrace-fakehome-');
    const env = { HOME: fakeHome };
    const h = tempHome();
    expectFailure(await runCli(['checkpoint', '--json', '--cwd', fakeHome], { home: h, env }), 'E_PROTECTED_DIR', 1);
    expectFailure(
      await runCli(['checkpoint', '--json', '--cwd', `${fakeHome}/`], { home: h, env }),
      'E_PROTECTED_DIR',
      1,
    );
    expectFailure(await runCli(['checkpoint', '--json'], { home: h, env, cwd: fakeHome }), 'E_PROTECTED_DIR', 1);
    mkdirSync(join(fakeHome, 'Documents'));
    expectFailure(
      await runCli(['checkpoint', '--json', '--cwd', join(fakeHome, 'Documents')], { home: h, env }),
      'E_PROTECTED_DIR',
      1,
    );
    expectFailure(await runCli(['status', '--json', '--cwd', '/'], { home: h }), 'E_PROTECTED_DIR', 1);
    expect(existsSync(join(h, 'workspaces')) ? readdirSync(join(h, 'workspaces')) : []).toEqual([]);
  });
  it('E_PROTECTED_DIR for the data directory itself', async () => {
    expectFailure(await runCli(['checkpoint', '--json', '--cwd', home], { home }), 'E_PROTECTED_DIR', 1);
  });
  it('--data-dir wins over RETRACE_HOME', async () => {
    const other = tempHome();
    await cliJson(['checkpoint', '--data-dir', other], { home, cwd: root });
    expect(readdirSync(join(other, 'workspaces'))).toHaveLength(1);
  });
});

describe('bad names: exit 1', () => {
  it('E_UNKNOWN_CHECKPOINT for an unknown hash, a short prefix, an unknown message id and a message without a checkpoint', async () => {
    const m = await cliJson(['message', '--role', 'user', '--text', 'no checkpoint here', '--session', 'names'], {
      home,
      cwd: root,
    });
    await cliJson(['checkpoint', '--session', 'names'], { home, cwd: root });
    for (const target of [
      '0000000000000000000000000000000000000000',
      'abc',
      'm_doesnotexist',
      m.message as string,
      'deadbeef0',
    ]) {
      expectFailure(
        await runCli(['restore', target, '--code', '--json'], { home, cwd: root }),
        'E_UNKNOWN_CHECKPOINT',
        1,
      );
    }
    expectFailure(await runCli(['diff', 'm_nope', '--json'], { home, cwd: root }), 'E_UNKNOWN_CHECKPOINT', 1);
  });
  it('E_AMBIGUOUS for a prefix that two checkpoints share', async () => {
    const ws = tempDir('retrace-ws-');
    writeFileSync(join(ws, 'a.txt'), 'a\n');
    const c = await cliJson(['checkpoint', '--session', 'one'], { home, cwd: ws });
    const log = readdirSync(join(home, 'workspaces'))
      .map((id) => join(home, 'workspaces', id, 'sessions', 'one.jsonl'))
      .find(existsSync)!;
    // A second checkpoint message whose hash shares the first 7 digits (crafted: 16^7 makes a real one rare).
    const twin = `${(c.hash as string).slice(0, 7)}${'0'.repeat(33)}`;
    writeFileSync(
      log,
      JSON.stringify({
        type: 'message',
        id: 'm_twin',
        ts: new Date().toISOString(),
        role: 'system',
        text: 'twin',
        hash: twin,
      }) + '\n',
      { flag: 'a' },
    );
    expectFailure(
      await runCli(['restore', (c.hash as string).slice(0, 7), '--code', '--json'], { home, cwd: ws }),
      'E_AMBIGUOUS',
      1,
    );
  });
  it('E_UNKNOWN_CHECKPOINT for a checkpoint a repair gave up (unavailable.json), which log marks', async () => {
    const ws = tempDir('retrace-ws-');
    writeFileSync(join(ws, 'a.txt'), 'a\n');
    const h = tempHome();
    const c = await cliJson(['checkpoint', '--session', 'lost'], { home: h, cwd: ws });
    const id = readdirSync(join(h, 'workspaces'))[0]!;
    writeFileSync(join(h, 'workspaces', id, 'unavailable.json'), JSON.stringify({ hashes: [c.hash] }));
    const log = await cliJson<{ messages: { meta?: { checkpointUnavailable?: boolean } }[] }>(
      ['log', '--session', 'lost'],
      { home: h, cwd: ws },
    );
    expect(log.messages[0]!.meta?.checkpointUnavailable).toBe(true);
    for (const args of [
      ['restore', c.hash as string, '--code'],
      ['diff', c.message as string],
    ]) {
      const r = await runCli([...args, '--json'], { home: h, cwd: ws });
      expectFailure(r, 'E_UNKNOWN_CHECKPOINT', 1);
      expect(r.stderr).toContain('unavailable');
    }
  });
  it('E_UNKNOWN_SESSION for log --session with an unknown id, and for log in a workspace without sessions', async () => {
    expectFailure(await runCli(['log', '--session', 'nope', '--json'], { home, cwd: root }), 'E_UNKNOWN_SESSION', 1);
    expectFailure(await runCli(['log', '--json'], { home, cwd: tempDir('retrace-ws-') }), 'E_UNKNOWN_SESSION', 1);
  });
  it('E_INVALID_INPUT for a session id that is not a safe name', async () => {
    expectFailure(
      await runCli(['checkpoint', '--session', '../x', '--json'], { home, cwd: root }),
      'E_INVALID_INPUT',
      1,
    );
    expectFailure(
      await runCli(['checkpoint', '--session', 'x.lock', '--json'], { home, cwd: root }),
      'E_INVALID_INPUT',
      1,
    );
  });
  it('E_PATH_OUTSIDE_WORKSPACE for --file paths that leave the workspace', async () => {
    const c = await cliJson(['checkpoint', '--session', 'paths'], { home, cwd: root });
    for (const p of ['../x', '/etc/passwd', 'src/../../x', '..\\x']) {
      expectFailure(
        await runCli(['restore', c.hash as string, '--code', '--file', p, '--json'], { home, cwd: root }),
        'E_PATH_OUTSIDE_WORKSPACE',
        1,
      );
    }
    expectFailure(
      await runCli(['diff', c.hash as string, '--file', '../outside', '--json'], { home, cwd: root }),
      'E_PATH_OUTSIDE_WORKSPACE',
      1,
    );
  });
});

describe('environment problems: exit 1', () => {
  it('E_GIT_MISSING when git is not on PATH', async () => {
    const ws = tempDir('retrace-ws-');
    writeFileSync(join(ws, 'a.txt'), 'a\n');
    expectFailure(
      await runCli(['checkpoint', '--json'], { home: tempHome(), cwd: ws, path: '/nonexistent' }),
      'E_GIT_MISSING',
      1,
    );
  });
  it('E_LOCKED when another writer holds the workspace past the bounded wait', async () => {
    const ws = tempDir('retrace-ws-');
    const h = tempHome();
    await cliJson(['checkpoint'], { home: h, cwd: ws });
    const id = readdirSync(join(h, 'workspaces'))[0]!;
    // A live holder: this test process, with a fresh heartbeat.
    writeFileSync(
      join(h, 'workspaces', id, 'writer.lock'),
      JSON.stringify({
        pid: process.pid,
        hostname: (await import('node:os')).hostname(),
        command: 'test holder',
        startedAt: new Date().toISOString(),
        token: 'x',
      }),
    );
    const r = await runCli(['checkpoint', '--json'], { home: h, cwd: ws, env: { RETRACE_LOCK_WAIT_MS: '300' } });
    expectFailure(r, 'E_LOCKED', 1);
    expect(r.stderr).toContain(String(process.pid));
  });
  it('E_UNREADABLE for a folder the user cannot read', async () => {
    if (process.getuid?.() !== 0) return; // run as another user only when root can arrange it
    const ws = tempDir('retrace-ws-');
    const { chmodSync } = await import('node:fs');
    chmodSync(ws, 0o700);
    const h = tempHome();
    chmodSync(h, 0o777);
    const r = await runCli(['checkpoint', '--json', '--cwd', ws], { home: h, asUser: { uid: 65534, gid: 65534 } });
    expectFailure(r, 'E_UNREADABLE', 1);
  });
});

describe('retrace serve on a port that is taken', () => {
  it('E_PORT_IN_USE naming the port, exit 1', async () => {
    const net = await import('node:net');
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as import('node:net').AddressInfo).port;
    try {
      const r = await runCli(['serve', '--port', String(port), '--no-open', '--json'], { home, cwd: root });
      // (stderr may also carry the "UI is not built" note before the error line)
      expect(r.code, r.stderr).toBe(1);
      expect(r.json).toEqual({ error: { code: 'E_PORT_IN_USE', message: expect.stringContaining(String(port)) } });
      expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^retrace: port ${port} .*in use`));
    } finally {
      holder.close();
    }
  });
});

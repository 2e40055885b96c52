/**
 * The hook server must never receive the agent's secrets: a hook call sends the server an allow-list of
 * environment variables (protocol.ts forwardedEnv), and the resident server is started with that list only.
 * Checked where it matters, on the server's side: the bytes a listening server receives, and the environment
 * of a real server process (/proc/PID/environ).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookServerPaths } from '../../src/main/cli/hookServer/paths';
import { pidAlive } from '../../src/main/engine/pidAlive';
import { isForwardedEnv } from '../../src/main/cli/hookServer/protocol';
import { cleanupTempDirs, makeWorkspace, runCli, tempDir, tempHome } from '../helpers';

const SESSION = '5e55a7e0-1b2c-4d3e-8f4a-5b6c7d8e9f0e';
const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-test-secret-1',
  OPENAI_API_KEY: 'sk-test-secret-2',
  GITHUB_TOKEN: 'ghp_test-secret-3',
  CLAUDE_CODE_OAUTH_TOKEN: 'oauth-test-secret-4',
  AWS_SECRET_ACCESS_KEY: 'aws-test-secret-5',
};
/** The suite runs hooks in-process (vitest.config.ts): these calls go to a server. */
const ON = { RETRACE_HOOK_SERVER: undefined, RETRACE_HOOK_TRACE: '1', CLAUDE_PROJECT_DIR: undefined };

const pids = new Set<number>();
afterEach(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  pids.clear();
  cleanupTempDirs();
});

function hookCall(home: string, ws: string, env: Record<string, string | undefined>) {
  const transcript = join(tempDir('retrace-claude-'), `${SESSION}.jsonl`);
  writeFileSync(transcript, '');
  return runCli(['hook', 'claude-code'], {
    home,
    cwd: ws,
    env,
    input: JSON.stringify({
      session_id: SESSION,
      transcript_path: transcript,
      cwd: ws,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'hi',
    }),
  });
}

describe('the hook server gets an allow-listed environment only', () => {
  it('the allow-list: what the hook reads, never credentials', () => {
    for (const k of ['RETRACE_HOME', 'HOME', 'PATH', 'CLAUDE_CONFIG_DIR', 'CLAUDE_PROJECT_DIR', 'CODEX_HOME'])
      expect(isForwardedEnv(k), k).toBe(true);
    for (const k of ['XDG_CONFIG_HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'Path', 'SystemRoot'])
      expect(isForwardedEnv(k), k).toBe(true);
    for (const k of [...Object.keys(SECRETS), 'GEMINI_API_KEY', 'SSH_AUTH_SOCK', 'NPM_TOKEN', 'DATABASE_URL'])
      expect(isForwardedEnv(k), k).toBe(false);
  });

  it('a listening server receives no secret of the caller, and the variables the hook needs', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const paths = hookServerPaths(home);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    const received: string[] = [];
    const server = net.createServer((s) => {
      let buf = '';
      s.on('data', (d) => {
        buf += d.toString('utf8');
        if (!buf.includes('\n')) return;
        received.push(buf);
        s.end(JSON.stringify({ status: 'ok', code: 0, stdout: '', stderr: '' }) + '\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(paths.socket, resolve));
    try {
      const r = await hookCall(home, ws, { ...ON, ...SECRETS, CLAUDE_CONFIG_DIR: '/claude-config' });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    } finally {
      server.close();
    }
    expect(received).toHaveLength(1);
    for (const value of Object.values(SECRETS)) expect(received[0]).not.toContain(value);
    const req = JSON.parse(received[0]!) as { env: Record<string, string> };
    expect(Object.keys(req.env).filter((k) => !isForwardedEnv(k))).toEqual([]);
    expect(req.env).toMatchObject({ RETRACE_HOME: home, CLAUDE_CONFIG_DIR: '/claude-config' });
    expect(req.env.PATH).toBe(process.env.PATH);
  });

  it('a real server started by a call holds none of the caller’s secrets in its environment', async (ctx) => {
    if (process.platform !== 'linux') ctx.skip('skipped: reads /proc/PID/environ (Linux only)');
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const env = { ...ON, ...SECRETS };
    expect((await hookCall(home, ws, env)).code).toBe(0); // in-process; starts the server
    const pidFile = hookServerPaths(home).pidFile;
    let pid = 0;
    const until = Date.now() + 20_000;
    while (!(pid > 0 && pidAlive(pid))) {
      if (Date.now() > until) throw new Error('gave up waiting for the hook server');
      await new Promise((r) => setTimeout(r, 25));
      pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : 0;
    }
    pids.add(pid);
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    const names = environ
      .split('\0')
      .filter(Boolean)
      .map((kv) => kv.slice(0, kv.indexOf('=')));
    expect(names.filter((k) => !isForwardedEnv(k))).toEqual([]);
    for (const value of Object.values(SECRETS)) expect(environ).not.toContain(value);
    expect(names).toContain('RETRACE_HOME');
  });
});

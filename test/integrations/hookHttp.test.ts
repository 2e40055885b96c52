/**
 * Claude Code's HTTP hooks (src/main/cli/hookServer/httpHooks.ts): the resident hook server also answers
 * POST http://127.0.0.1:PORT/hook/claude-code with the secret header, running what `retrace hook claude-code`
 * runs. Real processes: the built CLI, the server it starts, real git, temp folders. Every server a test
 * starts is killed.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readHttpConfig, SECRET_HEADER, type HttpHookConfig } from '../../src/main/cli/hookServer/httpConfig';
import { hookServerPaths } from '../../src/main/cli/hookServer/paths';
import { pidAlive } from '../../src/main/engine/pidAlive';
import { REFRESH_STREAK } from '../../src/main/engine/shadow/warmScope';
import {
  cleanupTempDirs,
  eventually,
  cliJson,
  gitAt,
  makeWorkspace,
  runCli,
  shadowDir,
  tempDir,
  tempHome,
  type CliResult,
} from '../helpers';

const SESSION = '7e55a7e0-1b2c-4d3e-8f4a-5b6c7d8e9f01';
/** The suite's default (vitest.config.ts) is RETRACE_HOOK_SERVER=0: these tests turn the server on. */
const ON = { RETRACE_HOOK_SERVER: undefined, RETRACE_HOOK_TRACE: '1', CLAUDE_PROJECT_DIR: undefined };

const started = new Set<number>();
afterEach(() => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  started.clear();
  cleanupTempDirs();
});

function readPid(file: string): number {
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createConnection(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** The server's pid and HTTP config once its HTTP side accepts. */
async function httpUp(home: string): Promise<{ pid: number; config: HttpHookConfig }> {
  return eventually('a hook server listening on HTTP', async () => {
    const pid = readPid(hookServerPaths(home).pidFile);
    const config = readHttpConfig(home);
    if (!pid || !pidAlive(pid) || !config || !(await accepts(config.port))) return null;
    started.add(pid);
    return { pid, config };
  });
}

function hookLog(home: string): string {
  try {
    return readFileSync(join(home, 'logs', 'hook.log'), 'utf8');
  } catch {
    return '';
  }
}

interface Turn {
  home: string;
  ws: string;
  transcript: string;
  payload(p: Record<string, unknown>): string;
  command(p: Record<string, unknown>): Promise<CliResult>;
}

function turn(home = tempHome()): Turn {
  const ws = makeWorkspace({ 'app.js': "console.log('hi');\n", 'README.md': '# app\n' });
  const transcript = join(tempDir('retrace-claude-'), `${SESSION}.jsonl`);
  writeFileSync(transcript, '');
  const payload = (p: Record<string, unknown>): string =>
    JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: ws, ...p });
  return {
    home,
    ws,
    transcript,
    payload,
    async command(p) {
      const r = await runCli(['hook', 'claude-code'], { home, cwd: ws, env: ON, input: payload(p) });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
      return r;
    },
  };
}

async function post(
  config: HttpHookConfig,
  body: string,
  headers: Record<string, string> = { [SECRET_HEADER]: config.secret },
): Promise<{ status: number; text: string }> {
  const r = await fetch(`http://127.0.0.1:${config.port}/hook/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: r.status, text: await r.text() };
}

const PROMPT = { hook_event_name: 'UserPromptSubmit', prompt: 'Add a greeting' };
const WRITE = (ws: string) => ({
  hook_event_name: 'PostToolUse',
  tool_name: 'Write',
  tool_use_id: 'toolu_w',
  tool_input: { file_path: join(ws, 'greet.js'), content: 'export const greet = 1;\n' },
});
const BASH = {
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_use_id: 'toolu_b',
  tool_input: { command: 'sed' },
};
const STOP = { hook_event_name: 'Stop', last_assistant_message: 'Done.' };

async function recorded(t: Turn): Promise<{ role: string; text: string; meta: unknown; tree: string | null }[]> {
  const log = await cliJson<{ messages: { role: string; text: string; hash: string | null; meta?: unknown }[] }>(
    ['log', '--cwd', t.ws],
    { home: t.home },
  );
  const shadow = shadowDir(t.home, t.ws);
  return log.messages.map((m) => ({
    role: m.role,
    text: m.text,
    meta: m.meta,
    tree: m.hash ? gitAt(shadow, ['rev-parse', `${m.hash}^{tree}`]).trim() : null,
  }));
}

describe('HTTP hooks', () => {
  it('an HTTP hook call records exactly what the command hook records with the same payload', async () => {
    const byCommand = turn();
    const byHttp = turn();
    for (const t of [byCommand, byHttp]) await t.command(PROMPT); // starts each data home's server
    const { config } = await httpUp(byHttp.home);
    await httpUp(byCommand.home);
    // The same tool calls, each after the same file change: by command hook in one, by HTTP in the other.
    for (const p of [WRITE, BASH, STOP]) {
      for (const t of [byCommand, byHttp]) {
        if (p === WRITE) writeFileSync(join(t.ws, 'greet.js'), 'export const greet = 1;\n');
        if (p === BASH) writeFileSync(join(t.ws, 'app.js'), "console.log('hello');\n");
        const payload = typeof p === 'function' ? p(t.ws) : p;
        if (t === byCommand) await t.command(payload);
        else expect(await post(config, t.payload(payload))).toEqual({ status: 200, text: '{}' });
      }
    }
    const a = await recorded(byCommand);
    const b = await recorded(byHttp);
    expect(a.map((m) => m.role)).toEqual(['user', 'tool', 'tool', 'assistant']);
    expect(b).toEqual(a);
    expect(hookLog(byHttp.home)).toMatch(/ok PostToolUse .* via server/);
  });

  it('a call made after the agent cd-ed into a subfolder records into the session where it began', async () => {
    // Claude Code's payload cwd follows the agent's `cd`s; an HTTP hook has no CLAUDE_PROJECT_DIR to go by.
    const t = turn();
    mkdirSync(join(t.ws, 'web'));
    await t.command(PROMPT);
    const { config } = await httpUp(t.home);
    writeFileSync(join(t.ws, 'web', 'page.js'), 'export const page = 1;\n');
    const write = {
      hook_event_name: 'PostToolUse',
      tool_name: 'Write',
      tool_use_id: 'toolu_web',
      tool_input: { file_path: 'page.js', content: 'export const page = 1;\n' },
    };
    expect(await post(config, JSON.stringify({ ...JSON.parse(t.payload(write)), cwd: join(t.ws, 'web') }))).toEqual({
      status: 200,
      text: '{}',
    });
    const messages = await recorded(t);
    expect(messages.map((m) => m.role)).toEqual(['user', 'tool']);
    const shadow = shadowDir(t.home, t.ws);
    expect(gitAt(shadow, ['ls-tree', '-r', '--name-only', `${messages[1]!.tree}`]).split('\n')).toContain(
      'web/page.js',
    );
    // The subfolder did not become a workspace of its own, with a second half of the session.
    const inWeb = await runCli(['sessions', '--cwd', join(t.ws, 'web'), '--json'], { home: t.home });
    expect(inWeb.json).toEqual([]);
  });

  it('refuses a wrong or missing secret (403) and an oversized body (413), recording nothing', async () => {
    const t = turn();
    await t.command(PROMPT);
    const { config } = await httpUp(t.home);
    const before = await recorded(t);
    writeFileSync(join(t.ws, 'greet.js'), 'x\n');
    const body = t.payload(WRITE(t.ws));
    expect((await post(config, body, { [SECRET_HEADER]: 'f'.repeat(64) })).status).toBe(403);
    expect((await post(config, body, {})).status).toBe(403);
    expect((await post(config, body + ' '.repeat(9 * 1024 * 1024))).status).toBe(413);
    expect(await recorded(t)).toEqual(before);
    // And the right secret is then taken: the refusals did not break the server.
    expect((await post(config, body)).status).toBe(200);
    expect((await recorded(t)).length).toBe(before.length + 1);
  });

  it('keeps the connection for the next call, and closes it after a refusal', async () => {
    const t = turn();
    await t.command(PROMPT);
    const { config } = await httpUp(t.home);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const call = (headers: Record<string, string>) =>
      new Promise<{ status: number; reused: boolean; close: boolean }>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port: config.port, path: '/hook/claude-code', method: 'POST', agent, headers },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolve({ status: res.statusCode!, reused: req.reusedSocket, close: res.headers.connection === 'close' }),
            );
          },
        );
        req.on('error', reject);
        req.end(t.payload(BASH));
      });
    const ok = { 'content-type': 'application/json', [SECRET_HEADER]: config.secret };
    try {
      expect(await call(ok)).toEqual({ status: 200, reused: false, close: false });
      expect(await call(ok)).toEqual({ status: 200, reused: true, close: false });
      expect(await call({ ...ok, [SECRET_HEADER]: 'f'.repeat(64) })).toEqual({
        status: 403,
        reused: true,
        close: true,
      });
      expect(await call(ok)).toEqual({ status: 200, reused: false, close: false });
    } finally {
      agent.destroy();
    }
  });

  it('a call refused while no server runs keeps its changes in the next checkpoint, and the gap is marked', async () => {
    const t = turn();
    const claudeConfig = tempDir('retrace-claude-config-');
    const install = await runCli(['install', 'claude-code', '--http', '--json'], {
      home: t.home,
      cwd: t.ws,
      env: { CLAUDE_CONFIG_DIR: claudeConfig },
    });
    expect(install.code).toBe(0);
    await t.command(PROMPT);
    const { pid, config } = await httpUp(t.home);
    writeFileSync(join(t.ws, 'greet.js'), 'export const greet = 1;\n');
    expect((await post(config, t.payload(WRITE(t.ws)))).status).toBe(200);
    process.kill(pid, 'SIGTERM'); // the server goes away mid-turn (as after an idle exit)
    await eventually('the server to exit', () => !pidAlive(pid));
    started.delete(pid);
    writeFileSync(join(t.ws, 'app.js'), "console.log('lost');\n");
    await expect(post(config, t.payload(BASH))).rejects.toThrow(); // connection refused: Claude Code drops it
    await expect(post(config, t.payload(STOP))).rejects.toThrow();
    await t.command({ ...PROMPT, prompt: 'Next' }); // no server: runs in-process, starts one, marks the gap
    const messages = await recorded(t);
    expect(messages.map((m) => m.text)).toEqual(['Add a greeting', expect.any(String), 'Next']);
    const next = await cliJson<{ messages: { hash: string }[]; missed?: { reason: string; tool?: string }[] }>(
      ['log', '--cwd', t.ws],
      { home: t.home },
    );
    const shadow = shadowDir(t.home, t.ws);
    expect(gitAt(shadow, ['show', `${next.messages.at(-1)!.hash}:app.js`])).toBe("console.log('lost');\n");
    expect(next.missed).toHaveLength(1);
    expect(next.missed![0]!.reason).toMatch(/^HOOK_SERVER_DOWN: no hook server ran from \d{4}-\d\d-\d\dT.* until/);
    await httpUp(t.home); // the prompt started a new server
    // A turn that ended with its reply recorded loses nothing: no mark after the next restart.
    expect((await post(config, t.payload(STOP))).status).toBe(200);
    const again = await httpUp(t.home);
    process.kill(again.pid, 'SIGTERM');
    await eventually('the server to exit', () => !pidAlive(again.pid));
    await t.command({ ...PROMPT, prompt: 'Third' });
    await httpUp(t.home);
    const after = await cliJson<{ missed?: unknown[] }>(['log', '--cwd', t.ws], { home: t.home });
    expect(after.missed).toHaveLength(1);
  });

  it('does the periodic full scan between calls: an unhinted change reaches the next warm checkpoint', async () => {
    const t = turn();
    await t.command(PROMPT); // a full scan, and the server starts
    const { config } = await httpUp(t.home);
    const shadow = shadowDir(t.home, t.ws);
    const scanState = (): { warmSinceFull: number } =>
      JSON.parse(readFileSync(join(shadow, 'retrace-scan.json'), 'utf8')) as { warmSinceFull: number };
    const write = async (i: number): Promise<void> => {
      writeFileSync(join(t.ws, 'greet.js'), `export const greet = ${i};\n`);
      expect((await post(config, t.payload(WRITE(t.ws)))).status).toBe(200);
    };
    for (let i = 1; i < REFRESH_STREAK; i++) await write(i);
    // A change no hook names (a formatter, a watcher's build step), then the call that makes a refresh due.
    writeFileSync(join(t.ws, 'app.js'), "console.log('changed behind the hooks');\n");
    await write(REFRESH_STREAK);
    await eventually('the background scan', () => /background scan adopted/.test(hookLog(t.home)), 60_000);
    const beforeNext = await recorded(t);
    expect(gitAt(shadow, ['show', `${beforeNext.at(-1)!.tree}:app.js`])).toBe("console.log('hi');\n");
    await write(REFRESH_STREAK + 1);
    expect(scanState().warmSinceFull).toBe(1); // a warm call on the background scan's tree, not a full scan
    const next = (await recorded(t)).at(-1)!;
    expect(gitAt(shadow, ['show', `${next.tree}:app.js`])).toBe("console.log('changed behind the hooks');\n");
    // The very tree a full scan of the folder gives now.
    const full = await runCli(['checkpoint', '--json'], { home: t.home, cwd: t.ws, env: ON });
    expect(full.code).toBe(0);
    expect((await recorded(t)).at(-1)!.tree).toBe(next.tree);
  }, 120_000);

  it('runs without HTTP when its port is taken, and says so in hook.log', async () => {
    const t = turn();
    await t.command(PROMPT);
    const { pid, config } = await httpUp(t.home);
    process.kill(pid, 'SIGKILL');
    await eventually('the server to exit', () => !pidAlive(pid));
    // Another program takes the port. A SIGKILLed server can hold its socket for many seconds while a thread
    // finishes a sync on a busy disk: wait until the port is free, then take it.
    const squatter = net.createServer(() => {});
    const squat = () =>
      new Promise<boolean>((resolve, reject) => {
        const onError = (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' ? resolve(false) : reject(e));
        squatter.once('error', onError);
        squatter.listen(config.port, '127.0.0.1', () => {
          squatter.off('error', onError);
          resolve(true);
        });
      });
    const until = Date.now() + 60_000;
    while (!(await squat())) {
      if (Date.now() > until) throw new Error(`port ${config.port} still held 60 s after the server was killed`);
      await new Promise((r) => setTimeout(r, 250));
    }
    try {
      await t.command({ ...PROMPT, prompt: 'Again' }); // starts a new server
      await eventually('the port-in-use line', () => /runs without HTTP hooks: .* in use/.test(hookLog(t.home)));
      await t.command({ ...PROMPT, prompt: 'Via socket' });
      expect(hookLog(t.home)).toMatch(/ok UserPromptSubmit .* via server/);
      const newPid = readPid(hookServerPaths(t.home).pidFile);
      if (newPid) started.add(newPid);
    } finally {
      squatter.close();
    }
  }, 150_000);
});

describe('retrace install claude-code --http / --command', () => {
  const FOREIGN = {
    hooks: {
      PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo audit' }] }],
      Stop: [{ hooks: [{ type: 'http', url: 'http://127.0.0.1:9/other', timeout: 5 }] }],
    },
  };

  function hooksOf(settings: string, event: string): Record<string, unknown>[] {
    const doc = JSON.parse(readFileSync(settings, 'utf8')) as {
      hooks: Record<string, { hooks: Record<string, unknown>[] }[]>;
    };
    return doc.hooks[event]!.flatMap((g) => g.hooks);
  }

  it('writes HTTP hooks with --http and command hooks with --command, keeping foreign hooks', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const config = tempDir('retrace-claude-config-');
    const settings = join(config, 'settings.json');
    writeFileSync(settings, JSON.stringify(FOREIGN));
    const env = { CLAUDE_CONFIG_DIR: config };
    const http = await cliJson<{ transport: string; url: string }>(['install', 'claude-code', '--http'], {
      home,
      cwd: ws,
      env,
    });
    const saved = readHttpConfig(home)!;
    expect(http.transport).toBe('http');
    expect(http.url).toBe(`http://127.0.0.1:${saved.port}/hook/claude-code`);
    for (const event of ['PostToolUse', 'Stop']) {
      const ours = hooksOf(settings, event).filter((h) => h.url === http.url);
      expect(ours).toEqual([{ type: 'http', url: http.url, headers: { [SECRET_HEADER]: saved.secret }, timeout: 30 }]);
    }
    expect(hooksOf(settings, 'UserPromptSubmit')).toEqual([expect.objectContaining({ type: 'command' })]);
    expect(hooksOf(settings, 'PostToolUse')).toContainEqual({ type: 'command', command: 'echo audit' });
    expect(hooksOf(settings, 'Stop')).toContainEqual(FOREIGN.hooks.Stop[0]!.hooks[0]);
    expect(saved.httpHooks).toBe(true);
    expect(
      JSON.parse(readFileSync(settings, 'utf8')).hooks.PostToolUse.flatMap((g: { hooks: unknown[] }) => g.hooks),
    ).toHaveLength(2);

    const human = await runCli(['install', 'claude-code', '--command'], { home, cwd: ws, env });
    expect(human.stdout).toMatch(/PostToolUse and Stop: command hooks \(--command\)/);
    for (const event of ['PostToolUse', 'Stop']) {
      const list = hooksOf(settings, event);
      expect(list.filter((h) => typeof h.url === 'string' && h.url.endsWith('/hook/claude-code'))).toEqual([]);
      const ours = list.filter((h) => typeof h.command === 'string' && / hook claude-code$/.test(h.command));
      expect(ours).toHaveLength(1);
      expect(Object.keys(ours[0]!).sort()).toEqual(['command', 'timeout', 'type']);
    }
    expect(hooksOf(settings, 'Stop')).toContainEqual(FOREIGN.hooks.Stop[0]!.hooks[0]);
    expect(readHttpConfig(home)!.httpHooks).toBeUndefined();
  });

  it('without a flag, decides by `claude --version`: HTTP from 2.1.63, command hooks before or without claude', async () => {
    const bin = tempDir('retrace-fake-claude-');
    const path = `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`;
    const install = async (version: string | null): Promise<string> => {
      const claude = join(bin, 'claude');
      rmSync(claude, { force: true }); // null: no claude on PATH at all
      if (version) {
        writeFileSync(claude, `#!/bin/sh\necho "${version} (Claude Code)"\n`);
        chmodSync(claude, 0o755);
      }
      const config = tempDir('retrace-claude-config-');
      const r = await cliJson<{ transport: string }>(['install', 'claude-code'], {
        home: tempHome(),
        cwd: bin,
        path,
        env: { CLAUDE_CONFIG_DIR: config },
      });
      return r.transport;
    };
    expect(await install('2.1.63')).toBe('http');
    expect(await install('2.1.220')).toBe('http');
    expect(await install('2.1.62')).toBe('command');
    expect(await install(null)).toBe('command');
  });
});

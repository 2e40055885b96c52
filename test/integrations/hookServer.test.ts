/**
 * The resident hook server (src/main/cli/hookServer): `retrace hook claude-code` calls go through the built
 * CLI as Claude Code runs them. The first call of a data home runs in-process and starts the server; later
 * calls are answered by it ("via server" in the RETRACE_HOOK_TRACE line) and record exactly what the
 * in-process path records. Every server a test starts is killed and its folders removed.
 */
import { spawn } from 'node:child_process';
import {
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookServerPaths } from '../../src/main/cli/hookServer/paths';
import { pidAlive } from '../../src/main/engine/pidAlive';
import { BUILD_ID, type HookAnswer } from '../../src/main/cli/hookServer/protocol';
import {
  CLI_BIN,
  cleanupTempDirs,
  eventually,
  cliJson,
  gitAt,
  makeWorkspace,
  REPO_ROOT,
  runCli,
  shadowDir,
  spawnCli,
  tempDir,
  tempHome,
  type CliResult,
} from '../helpers';
import { line, text } from './claudeTranscript';

const SESSION = '5e55a7e0-1b2c-4d3e-8f4a-5b6c7d8e9f00';
/** The suite's default (vitest.config.ts) is RETRACE_HOOK_SERVER=0: these tests turn the server on. */
const ON = { RETRACE_HOOK_SERVER: undefined, RETRACE_HOOK_TRACE: '1', CLAUDE_PROJECT_DIR: undefined };

const started = new Set<number>();
const extraDirs = new Set<string>();

afterEach(() => {
  for (const pid of started) kill(pid);
  started.clear();
  for (const d of extraDirs) rmSync(d, { recursive: true, force: true });
  extraDirs.clear();
  cleanupTempDirs();
});

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

const alive = pidAlive;

/** The server's pid once it listens: a live pid in the pid file and a socket that accepts. */
async function serverUp(home: string): Promise<number> {
  const paths = hookServerPaths(home);
  const until = Date.now() + 20_000;
  for (;;) {
    const pid = readPid(paths.pidFile);
    if (pid && alive(pid) && (await connects(paths.socket)) && readPid(paths.pidFile) === pid) {
      started.add(pid);
      return pid;
    }
    if (Date.now() > until) throw new Error('gave up waiting for a listening hook server');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function readPid(file: string): number {
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
}

/** The pid of the server that logged `listening` (RETRACE_HOOK_TRACE), even if it has exited since. */
async function loggedServer(home: string): Promise<number> {
  const pid = await eventually('a hook server to log that it listens', () => {
    const m = hookLines(home)
      .map((l) => / hook-server (\d+) listening /.exec(l))
      .find(Boolean);
    return m ? Number(m[1]) : 0;
  });
  started.add(pid);
  return pid;
}

function connects(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createConnection(socket);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

async function gone(pid: number): Promise<void> {
  await eventually(`hook server ${pid} to exit`, () => !alive(pid));
  started.delete(pid);
}

function hookLines(home: string): string[] {
  try {
    return readFileSync(join(home, 'logs', 'hook.log'), 'utf8')
      .trim()
      .split('\n');
  } catch {
    return [];
  }
}

function lastOk(home: string): string {
  return hookLines(home)
    .filter((l) => / ok /.test(l))
    .at(-1)!;
}

interface Turn {
  home: string;
  ws: string;
  transcript: string;
  /** One hook call; asserts what every hook call must do (exit 0, nothing on stdout). */
  hook(payload: Record<string, unknown>, env?: Record<string, string | undefined>): Promise<CliResult>;
}

function turn(opts: { home?: string; env: Record<string, string | undefined> }): Turn {
  const home = opts.home ?? tempHome();
  const ws = makeWorkspace({ 'app.js': "console.log('hi');\n", 'README.md': '# app\n' });
  const transcript = join(tempDir('retrace-claude-'), `${SESSION}.jsonl`);
  writeFileSync(transcript, '');
  return {
    home,
    ws,
    transcript,
    async hook(payload, env = {}) {
      const r = await runCli(['hook', 'claude-code'], {
        home,
        cwd: ws,
        env: { ...opts.env, ...env },
        input: JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: ws, ...payload }),
      });
      expect([r.code, r.signal, r.stdout, r.stderr]).toEqual([0, null, '', '']);
      return r;
    },
  };
}

/** A prompt, a Write, a Bash edit and a Stop (its text read from the transcript). */
async function playTurn(t: Turn, after?: (step: number) => Promise<void>): Promise<void> {
  const ctx = { sessionId: SESSION, cwd: t.ws };
  const steps: (() => Promise<unknown>)[] = [
    () => t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'Add a greeting' }),
    async () => {
      writeFileSync(join(t.ws, 'greet.js'), 'export const greet = (n) => `Hello ${n}`;\n');
      await t.hook({
        hook_event_name: 'PostToolUse',
        tool_name: 'Write',
        tool_use_id: 'toolu_w',
        tool_input: { file_path: join(t.ws, 'greet.js'), content: 'export const greet = (n) => `Hello ${n}`;\n' },
      });
    },
    async () => {
      writeFileSync(join(t.ws, 'app.js'), "console.log('hello');\n");
      await t.hook({
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_use_id: 'toolu_b',
        tool_input: { command: "sed -i 's/hi/hello/' app.js" },
      });
    },
    async () => {
      writeFileSync(
        t.transcript,
        line(
          { type: 'assistant', uuid: 'a9', parent: null, ts: new Date(0).toISOString(), content: text('Done.') },
          ctx,
        ) + '\n',
      );
      await t.hook({ hook_event_name: 'Stop' });
    },
  ];
  for (let i = 0; i < steps.length; i++) {
    await steps[i]!();
    await after?.(i);
  }
}

/** What a turn recorded, without what differs from run to run (ids, times, commit hashes): texts, meta, trees. */
async function recorded(t: Pick<Turn, 'home' | 'ws'>): Promise<unknown> {
  const log = await cliJson<{
    session: string;
    messages: { role: string; text: string; hash: string | null; meta?: unknown }[];
  }>(['log', '--cwd', t.ws], { home: t.home });
  const shadow = shadowDir(t.home, t.ws);
  return {
    session: log.session,
    messages: log.messages.map((m) => ({
      role: m.role,
      text: m.text,
      meta: m.meta,
      tree: m.hash ? gitAt(shadow, ['rev-parse', `${m.hash}^{tree}`]).trim() : null,
    })),
  };
}

describe('hook server', () => {
  it('the first call runs in-process and starts the server; later calls go through it and record the same', async () => {
    const viaServer = turn({ env: ON });
    const lines: string[] = [];
    await playTurn(viaServer, async (step) => {
      lines.push(lastOk(viaServer.home));
      if (step === 0) await serverUp(viaServer.home);
    });
    expect(lines[0]).not.toMatch(/via server/);
    expect(lines.slice(1).every((l) => / via server$/.test(l))).toBe(true);

    const inProcess = turn({ env: { ...ON, RETRACE_HOOK_SERVER: '0' } });
    await playTurn(inProcess);
    expect(hookLines(inProcess.home).some((l) => /via server/.test(l))).toBe(false);

    const a = await recorded(viaServer);
    expect(a).toEqual(await recorded(inProcess));
    expect(a).toMatchObject({ session: SESSION, messages: [{ role: 'user' }, {}, {}, { text: 'Done.' }] });

    // One server, private folders.
    const paths = hookServerPaths(viaServer.home);
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
    expect(statSync(paths.socket).isSocket()).toBe(true);
    expect(statSync(paths.socket).mode & 0o777).toBe(0o600);
  });

  it('two calls at once are both answered by the server and both recorded', async () => {
    const t = turn({ env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'go' });
    const pid = await serverUp(t.home);
    writeFileSync(join(t.ws, 'a.txt'), 'a\n');
    writeFileSync(join(t.ws, 'b.txt'), 'b\n');
    const edit = (f: string) =>
      spawnCli(['hook', 'claude-code'], {
        home: t.home,
        cwd: t.ws,
        env: ON,
        input: JSON.stringify({
          session_id: SESSION,
          cwd: t.ws,
          hook_event_name: 'PostToolUse',
          tool_name: 'Write',
          tool_use_id: `toolu_${f}`,
          tool_input: { file_path: join(t.ws, f) },
        }),
      }).done;
    const runs = await Promise.all([edit('a.txt'), edit('b.txt')]);
    expect(runs.map((r) => [r.code, r.stdout])).toEqual([
      [0, ''],
      [0, ''],
    ]);
    const viaServer = hookLines(t.home).filter((l) => /ok PostToolUse .* via server$/.test(l));
    expect(viaServer).toHaveLength(2);
    const log = await cliJson<{ messages: { text: string }[] }>(['log', '--cwd', t.ws], { home: t.home });
    expect(log.messages.map((m) => m.text).sort()).toEqual(['Write a.txt', 'Write b.txt', 'go']);
    expect(readFileSync(hookServerPaths(t.home).pidFile, 'utf8')).toBe(String(pid));
  });

  it('a bad payload answered by the server: exit 0, nothing printed, the usual error line in hook.log', async () => {
    const t = turn({ env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    const pid = await serverUp(t.home);
    const r = await runCli(['hook', 'claude-code'], {
      home: t.home,
      cwd: t.ws,
      env: ON,
      input: '{"hook_event_name": "PostToolUse", "session_id": ',
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(hookLines(t.home).at(-1)).toMatch(
      / error \? \?: E_INVALID_INPUT the hook payload is not JSON .* via server$/,
    );
    expect(alive(pid)).toBe(true);
  });

  it('a SIGKILLed server: the next call still records (in-process) and starts a new server', async () => {
    const t = turn({ env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    const first = await serverUp(t.home);
    process.kill(first, 'SIGKILL');
    await gone(first);
    // Its pid file and socket are left behind, as after a crash.
    expect(existsSync(hookServerPaths(t.home).socket)).toBe(true);

    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'two' });
    expect(lastOk(t.home)).not.toMatch(/via server/);
    const second = await serverUp(t.home);
    expect(second).not.toBe(first);
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'three' });
    expect(lastOk(t.home)).toMatch(/via server$/);
    const log = await cliJson<{ messages: { text: string }[] }>(['log', '--cwd', t.ws], { home: t.home });
    expect(log.messages.map((m) => m.text)).toEqual(['one', 'two', 'three']);
  });

  it('a server that hangs up after taking a call: the call runs in-process, and is recorded once either way', async () => {
    const t = turn({ env: ON });
    const paths = hookServerPaths(t.home);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    // Reads the request, then hangs up without an answer: what a server killed in the middle of a call does.
    const hangUp = spawn(process.execPath, [
      '-e',
      `require('net').createServer((s) => s.once('data', () => s.destroy())).listen(${JSON.stringify(paths.socket)})`,
    ]);
    started.add(hangUp.pid!);
    await eventually('the hang-up server', () => existsSync(paths.socket));
    const edit = (id: string) => ({
      hook_event_name: 'PostToolUse',
      tool_name: 'Edit',
      tool_use_id: id,
      tool_input: { file_path: join(t.ws, 'app.js'), old_string: 'hi', new_string: 'hello' },
    });
    const recorded = async (id: string): Promise<number> => {
      const log = await cliJson<{ messages: { meta?: { sourceId?: string } }[] }>(['log', '--cwd', t.ws], {
        home: t.home,
      });
      return log.messages.filter((m) => m.meta?.sourceId === id).length;
    };
    const viaHangUp = async (id: string): Promise<void> => {
      writeFileSync(paths.pidFile, String(hangUp.pid)); // "a server is starting": the client starts no other
      await t.hook(edit(id));
    };

    // The server had not recorded it: the in-process run does.
    await viaHangUp('toolu_1');
    expect(await recorded('toolu_1')).toBe(1);
    // The server had recorded it (here: in-process, beforehand): the rerun sees it and records nothing more.
    await t.hook(edit('toolu_2'), { RETRACE_HOOK_SERVER: '0' });
    await viaHangUp('toolu_2');
    expect(await recorded('toolu_2')).toBe(1);
    // Only a rerun checks: the same call made twice on purpose is recorded twice.
    await t.hook(edit('toolu_3'), { RETRACE_HOOK_SERVER: '0' });
    await t.hook(edit('toolu_3'), { RETRACE_HOOK_SERVER: '0' });
    expect(await recorded('toolu_3')).toBe(2);
    expect(hookLines(t.home).filter((l) => l.includes(' error '))).toEqual([]);
  });

  it('a stale socket file and pid file (no listener, dead pid) are replaced', async () => {
    const home = tempHome();
    const paths = hookServerPaths(home);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    // A real socket file whose process died without removing it.
    const squatter = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(paths.socket)})`,
    ]);
    await eventually('the squatter socket', () => existsSync(paths.socket));
    squatter.kill('SIGKILL');
    await new Promise((r) => squatter.once('exit', r));
    writeFileSync(paths.pidFile, String(squatter.pid));
    expect(await connects(paths.socket)).toBe(false);

    const t = turn({ home, env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    const pid = await serverUp(home);
    expect(pid).not.toBe(squatter.pid);
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'two' });
    expect(lastOk(home)).toMatch(/ok UserPromptSubmit .* via server$/);
  });

  it('a server that lost its pid file and socket to a newer one exits without removing the newer socket', async () => {
    const t = turn({ env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    const old = await serverUp(t.home);
    // Frozen, so that the newer server surely takes over before the old one looks.
    process.kill(old, 'SIGSTOP');
    try {
      rmSync(hookServerPaths(t.home).pidFile);
      const newer = spawn(process.execPath, [CLI_BIN, 'hook-server', '--data-dir', t.home], { stdio: 'ignore' });
      started.add(newer.pid!);
      expect(await serverUp(t.home)).toBe(newer.pid);
    } finally {
      process.kill(old, 'SIGCONT');
    }
    await gone(old);
    expect(existsSync(hookServerPaths(t.home).socket)).toBe(true);
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'two' });
    expect(lastOk(t.home)).toMatch(/via server$/);
  });

  it('a server whose pid file another took leaves the socket path alone, even where the inode is the same', async () => {
    // A newer server's socket may be given the inode number the old socket freed: the old server cannot tell
    // the two apart by inode. Here the socket file is literally the old one (same inode), and the pid file names
    // another process: the old server must exit without unlinking the path (it is the newer server's to manage).
    const t = turn({ env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    const old = await serverUp(t.home);
    const { pidFile, socket } = hookServerPaths(t.home);
    process.kill(old, 'SIGSTOP');
    try {
      writeFileSync(pidFile, String(process.pid));
    } finally {
      process.kill(old, 'SIGCONT');
    }
    await gone(old);
    expect(existsSync(socket)).toBe(true);
    expect(readFileSync(pidFile, 'utf8')).toBe(String(process.pid));
    rmSync(pidFile);
  });

  it('a server of another build declines, exits, and the call runs in-process; a new server takes over', async () => {
    // A copy of the CLI whose bundles carry another build id.
    const copy = tempDir('retrace-oldbuild-');
    cpSync(join(REPO_ROOT, 'bin'), join(copy, 'bin'), { recursive: true });
    cpSync(join(REPO_ROOT, 'out/cli'), join(copy, 'out/cli'), { recursive: true });
    const id = readFileSync(join(REPO_ROOT, 'out/cli/build-id'), 'utf8').trim();
    const rewrite = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) rewrite(p);
        else if (/\.c?js$/.test(p)) writeFileSync(p, readFileSync(p, 'utf8').replaceAll(id, 'older-build'));
      }
    };
    rewrite(join(copy, 'out/cli'));
    const t = turn({ env: ON });
    const old = spawn(process.execPath, [join(copy, 'bin/retrace.js'), 'hook-server', '--data-dir', t.home], {
      stdio: 'ignore',
      env: { ...process.env, RETRACE_HOOK_TRACE: '1' },
    });
    started.add(old.pid!);
    expect(await serverUp(t.home)).toBe(old.pid);

    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    expect(lastOk(t.home)).not.toMatch(/via server/);
    await gone(old.pid!);
    expect(hookLines(t.home).some((l) => /hook-server \d+ exits: stale build older-build/.test(l))).toBe(true);
    const fresh = await serverUp(t.home);
    expect(fresh).not.toBe(old.pid);
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'two' });
    expect(lastOk(t.home)).toMatch(/via server$/);
  });

  it('declines a request of another build over the socket (protocol level)', async () => {
    const t = turn({ env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    const pid = await serverUp(t.home);
    const answer = await new Promise<HookAnswer>((resolve, reject) => {
      const s = net.createConnection(hookServerPaths(t.home).socket);
      let buf = '';
      s.on('data', (d) => (buf += d.toString()));
      s.on('end', () => resolve(JSON.parse(buf) as HookAnswer));
      s.on('error', reject);
      s.write(
        JSON.stringify({ build: `${BUILD_ID}-other`, dataHome: t.home, argv: [], cwd: '/', env: {}, stdin: '' }) + '\n',
      );
    });
    expect(answer).toEqual({ status: 'declined', reason: 'stale build' });
    await gone(pid);
    expect(existsSync(hookServerPaths(t.home).pidFile)).toBe(false);
  });

  it('exits when idle, when its socket file is removed, and when its data home disappears', async () => {
    const idle = turn({ env: { ...ON, RETRACE_HOOK_SERVER_IDLE_MS: '300' } });
    await idle.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    const a = await loggedServer(idle.home);
    await gone(a);
    expect(hookLines(idle.home).some((l) => l.endsWith(`hook-server ${a} exits: idle`))).toBe(true);
    expect(existsSync(hookServerPaths(idle.home).pidFile)).toBe(false);
    expect(existsSync(hookServerPaths(idle.home).socket)).toBe(false);

    const sock = turn({ env: ON });
    await sock.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    const b = await serverUp(sock.home);
    rmSync(hookServerPaths(sock.home).socket);
    await gone(b);

    const homeGone = turn({ env: ON });
    await homeGone.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    const c = await serverUp(homeGone.home);
    rmSync(homeGone.home, { recursive: true, force: true });
    await gone(c);
  });

  it('a data home with a long path gets its socket in a private folder of the temp dir', async () => {
    const home = join(tempDir('retrace-long-'), 'd'.repeat(100));
    const paths = hookServerPaths(home);
    expect(paths.socketDir).not.toBe(paths.dir);
    extraDirs.add(paths.socketDir!);
    const t = turn({ home, env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    await serverUp(home);
    expect(statSync(paths.socketDir!).mode & 0o777).toBe(0o700);
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'two' });
    expect(lastOk(home)).toMatch(/via server$/);
  });

  it.runIf(process.getuid?.() === 0)(
    'a socket folder of another user in the temp dir: nothing is sent there, calls run in-process, no retry storm',
    async () => {
      const home = join(tempDir('retrace-long-'), 'd'.repeat(100));
      const paths = hookServerPaths(home);
      extraDirs.add(paths.socketDir!);
      mkdirSync(paths.socketDir!, { mode: 0o755 });
      chownSync(paths.socketDir!, 65534, 65534);
      // Someone else's listener where ours would be: it must never hear from us.
      let heard = 0;
      const squatter = net.createServer((s) => (heard++, s.destroy()));
      await new Promise<void>((r) => squatter.listen(paths.socket, r));
      try {
        const t = turn({ home, env: ON });
        await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
        await eventually('the failed start to be noted', () => existsSync(paths.failedFile));
        for (const prompt of ['two', 'three']) await t.hook({ hook_event_name: 'UserPromptSubmit', prompt });
        expect(heard).toBe(0);
        expect(hookLines(home).filter((l) => / ok /.test(l) && !/via server/.test(l))).toHaveLength(3);
        expect(
          hookLines(home).filter((l) => /hook-server \d+ cannot start: .* not a private folder/.test(l)),
        ).toHaveLength(1);
        expect(existsSync(paths.pidFile)).toBe(false);
      } finally {
        await new Promise((r) => squatter.close(r));
      }
    },
  );

  it('RETRACE_HOOK_SERVER=0 and fault injection always run in-process and never start a server', async () => {
    const off = turn({ env: { ...ON, RETRACE_HOOK_SERVER: '0' } });
    for (const prompt of ['one', 'two', 'three']) await off.hook({ hook_event_name: 'UserPromptSubmit', prompt });
    // A server would have been spawned by the first call: give it ample time to show up.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(existsSync(hookServerPaths(off.home).dir)).toBe(false);
    expect(hookLines(off.home).filter((l) => / ok /.test(l))).toHaveLength(3);

    // With a server running, an armed fault still kills the process doing the work: the hook's own.
    const t = turn({ env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    const pid = await serverUp(t.home);
    writeFileSync(join(t.ws, 'app.js'), 'changed\n');
    const r = await runCli(['hook', 'claude-code'], {
      home: t.home,
      cwd: t.ws,
      env: { ...ON, RETRACE_TEST_FAULTS: '1', RETRACE_FAULT: 'checkpoint:after-commit' },
      input: JSON.stringify({ session_id: SESSION, cwd: t.ws, hook_event_name: 'UserPromptSubmit', prompt: 'two' }),
    });
    expect(r.signal).toBe('SIGKILL');
    expect(alive(pid)).toBe(true);
  });
});

describe('hook client (out/cli/hook-client.cjs)', () => {
  /** Codex's and Gemini CLI's turn: a prompt, a file written by a tool (its call carries 1 MB), the reply. */
  const agentTurns = {
    codex: (ws: string, session: string) =>
      [
        { hook_event_name: 'UserPromptSubmit', prompt: 'Add a greeting' },
        {
          hook_event_name: 'PostToolUse',
          tool_name: 'Bash',
          tool_use_id: 'call_1',
          tool_input: { command: 'echo hi > greet.txt' },
          tool_response: 'x'.repeat(1 << 20),
          write: 'greet.txt',
        },
        { hook_event_name: 'Stop', last_assistant_message: 'Done.' },
      ].map((p) => ({ session_id: session, cwd: ws, ...p })),
    gemini: (ws: string, session: string) =>
      [
        { hook_event_name: 'BeforeAgent', prompt: 'Add a greeting' },
        {
          hook_event_name: 'AfterTool',
          tool_name: 'write_file',
          tool_input: { file_path: join(ws, 'greet.txt'), content: 'y'.repeat(1 << 20) },
          write: 'greet.txt',
        },
        { hook_event_name: 'AfterAgent', prompt: 'Add a greeting', prompt_response: 'Done.' },
      ].map((p) => ({ session_id: session, cwd: ws, ...p })),
  };

  for (const agent of ['codex', 'gemini'] as const) {
    it(`${agent}: the same payloads through the client and the server as through the CLI in-process: same output, same record`, async () => {
      const play = async (env: Record<string, string | undefined>, serverFirst: boolean) => {
        const home = tempHome();
        const ws = makeWorkspace({ 'app.js': "console.log('hi');\n" });
        const outputs: unknown[] = [];
        const lines: string[] = [];
        for (const [i, { write, ...payload }] of agentTurns[agent](ws, `${agent}-session-1`).entries()) {
          if (write) writeFileSync(join(ws, write), `written by the ${agent} tool\n`);
          const r = await runCli(['hook', agent], {
            home,
            cwd: ws,
            env: { ...env, GEMINI_PROJECT_DIR: ws },
            input: JSON.stringify(payload),
          });
          outputs.push([r.code, r.signal, r.stdout, r.stderr]);
          lines.push(lastOk(home));
          if (i === 0 && serverFirst) await serverUp(home);
        }
        return { home, ws, outputs, lines };
      };
      const viaServer = await play(ON, true);
      expect(viaServer.lines[0]).not.toMatch(/via server/);
      expect(viaServer.lines.slice(1).every((l) => / via server$/.test(l))).toBe(true);
      const inProcess = await play({ ...ON, RETRACE_HOOK_SERVER: '0' }, false);
      expect(inProcess.lines.some((l) => /via server/.test(l))).toBe(false);

      expect(viaServer.outputs).toEqual(Array(3).fill([0, null, '{}\n', '']));
      expect(viaServer.outputs).toEqual(inProcess.outputs);
      const a = await recorded(viaServer);
      expect(a).toEqual(await recorded(inProcess));
      expect(a).toMatchObject({ session: `${agent}-session-1`, messages: [{ role: 'user' }, {}, { text: 'Done.' }] });
    });
  }

  it('an unknown agent answered by the server: the same exit code, output and hook.log error as the CLI in-process', async () => {
    const t = turn({ env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    await serverUp(t.home);
    const call = (env: Record<string, string | undefined>) =>
      runCli(['hook', 'no-such-agent'], { home: t.home, cwd: t.ws, env, input: '{}' });
    const viaServer = await call(ON);
    const serverLine = hookLines(t.home).at(-1)!;
    const inProcess = await call({ ...ON, RETRACE_HOOK_SERVER: '0' });
    const ownLine = hookLines(t.home).at(-1)!;
    expect([viaServer.code, viaServer.stdout, viaServer.stderr]).toEqual([
      inProcess.code,
      inProcess.stdout,
      inProcess.stderr,
    ]);
    const error = (l: string) => / error (.*) \(\d+ms\)/.exec(l)?.[1];
    expect(serverLine).toMatch(/ via server$/);
    expect(error(serverLine)).toMatch(/^\? \?: \w+ unknown hook source "no-such-agent"$/);
    expect(error(serverLine)).toBe(error(ownLine));
  });

  it("a server's answer is printed as it is, exit code included; an answer the client cannot read runs the hook in-process", async () => {
    const t = turn({ env: ON });
    const paths = hookServerPaths(t.home);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    // A server answering each request with the next of these lines.
    const answers = [
      { status: 'ok', code: 3, stdout: 'out\n', stderr: 'retrace: it failed (E_SOMETHING)\n' },
      { status: 'ok', code: 'zero', stdout: '', stderr: '' },
      { status: 'ok', code: 0 },
      { status: 'fine' },
    ];
    const fake = spawn(process.execPath, [
      '-e',
      `const answers = ${JSON.stringify(answers)};
       require('net').createServer((s) => s.once('data', () => s.end(JSON.stringify(answers.shift()) + '\\n')))
         .listen(${JSON.stringify(paths.socket)});`,
    ]);
    started.add(fake.pid!);
    await eventually('the fake server', () => existsSync(paths.socket));
    const call = async (prompt: string): Promise<CliResult> => {
      writeFileSync(paths.pidFile, String(fake.pid)); // "a server is starting": the client starts no other
      return runCli(['hook', 'claude-code'], {
        home: t.home,
        cwd: t.ws,
        env: ON,
        input: JSON.stringify({ session_id: SESSION, cwd: t.ws, hook_event_name: 'UserPromptSubmit', prompt }),
      });
    };
    const passed = await call('not recorded: the fake server answered');
    expect([passed.code, passed.stdout, passed.stderr]).toEqual([3, 'out\n', 'retrace: it failed (E_SOMETHING)\n']);
    for (const prompt of ['two', 'three', 'four']) {
      const r = await call(prompt);
      expect([r.code, r.signal, r.stdout, r.stderr]).toEqual([0, null, '', '']);
      expect(lastOk(t.home)).toMatch(new RegExp(` ok UserPromptSubmit ${SESSION} `));
      expect(lastOk(t.home)).not.toMatch(/via server/);
    }
    const log = await cliJson<{ messages: { text: string }[] }>(['log', '--cwd', t.ws], { home: t.home });
    expect(log.messages.map((m) => m.text)).toEqual(['two', 'three', 'four']);
  });

  it('stdin from a file, from /dev/null and from a pipe that stays open until the payload is written', async () => {
    const t = turn({ env: ON });
    await t.hook({ hook_event_name: 'UserPromptSubmit', prompt: 'one' });
    await serverUp(t.home);
    const payloadFile = join(tempDir('retrace-payload-'), 'payload.json');
    writeFileSync(
      payloadFile,
      JSON.stringify({ session_id: SESSION, cwd: t.ws, hook_event_name: 'UserPromptSubmit', prompt: 'two' }),
    );
    const sh = (script: string) =>
      new Promise<[number | null, string, string]>((resolve) => {
        const child = spawn('sh', ['-c', script], {
          cwd: t.ws,
          env: { ...process.env, ...ON, RETRACE_HOME: t.home, RETRACE_HOOK_SERVER: undefined } as NodeJS.ProcessEnv,
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        child.on('exit', (code) => resolve([code, out, err]));
      });
    const hook = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_BIN)} hook claude-code`;
    expect(await sh(`${hook} < ${JSON.stringify(payloadFile)}`)).toEqual([0, '', '']);
    expect(lastOk(t.home)).toMatch(/ ok UserPromptSubmit .* via server$/);
    expect(await sh(`${hook} < /dev/null`)).toEqual([0, '', '']);
    expect(hookLines(t.home).at(-1)).toMatch(/ error \? \?: E_INVALID_INPUT .* via server$/);
    expect(await sh(`(sleep 0.3; cat ${JSON.stringify(payloadFile)} | sed s/two/three/) | ${hook}`)).toEqual([
      0,
      '',
      '',
    ]);
    const log = await cliJson<{ messages: { text: string }[] }>(['log', '--cwd', t.ws], { home: t.home });
    expect(log.messages.map((m) => m.text)).toEqual(['one', 'two', 'three']);
  });
});

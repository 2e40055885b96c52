/**
 * The Claude Code hook measured as Claude Code calls it, through the configuration `retrace install
 * claude-code` writes (issue 15, target 1): rows `hook-http` (the PostToolUse hook POSTed to the URL in
 * settings.json with its header) and `hook-command` (the installed command run through a shell with the payload
 * on stdin). Both installs point at the same data home, workspace and session, and the calls alternate
 * (http, command, http, …), so load on the machine falls on both alike. As in a real turn: the prompt hook
 * (a command hook in both modes) starts the hook server and makes the turn's first checkpoint, untimed; then
 * each timed call follows one edited file, after a pause for the model's thinking (the hook server does its
 * background work then, as it would).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { applyEdits, type GeneratedTree } from './generate';
import { run } from './proc';
import { median, round1 } from './stats';

/** Timed calls per mode and size (the issue asks for ≥ 20). */
export const HOOK_MODE_CALLS = 20;
/** Between calls: the model thinking (seconds in a real turn; short here to keep the bench short). */
const THINK_MS = 1_000;

interface Installed {
  env: NodeJS.ProcessEnv;
  settings: { hooks: Record<string, { hooks: Record<string, unknown>[] }[]> };
}

export interface HookModeResult {
  mode: 'hook-http' | 'hook-command';
  times: number[];
  /** CPU ms per call of the hook server (and the git children it reaped), and of the command's own process. */
  cpus: number[];
  medianMs: number;
  p95Ms: number;
}

/** The p-th percentile (nearest rank) of the timings. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export async function benchHookModes(opts: {
  repo: string;
  root: string;
  dataHome: string;
  tree: GeneratedTree;
  calls?: number;
  log: (line: string) => void;
}): Promise<HookModeResult[]> {
  const { root, dataHome, tree, log } = opts;
  const calls = opts.calls ?? HOOK_MODE_CALLS;
  const cli = path.join(opts.repo, 'bin/retrace.js');
  const base = path.join(path.dirname(dataHome), 'hook-modes');
  // The command form with absolute paths (node + this checkout's bin), whatever `retrace` PATH may hold.
  const pathEnv = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((d) => !existsExe(path.join(d, 'retrace')))
    .join(path.delimiter);
  const install = (mode: 'command' | 'http'): Installed => {
    const config = path.join(base, `claude-${mode}`);
    mkdirSync(config, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: pathEnv,
      RETRACE_HOME: dataHome,
      CLAUDE_CONFIG_DIR: config,
      CLAUDE_PROJECT_DIR: root,
      RETRACE_HOOK_TRACE: '1',
    };
    delete env.RETRACE_HOOK_SERVER;
    run(process.execPath, [cli, 'install', 'claude-code', `--${mode}`, '--user'], { cwd: root, env });
    const settings = JSON.parse(readFileSync(path.join(config, 'settings.json'), 'utf8')) as Installed['settings'];
    return { env, settings };
  };
  // --command first: the later --http install leaves the data home marked as having HTTP hooks, as for a user.
  const byCommand = install('command');
  const byHttp = install('http');
  const posted = byHttp.settings.hooks.PostToolUse?.[0]?.hooks[0] as
    { type: string; url: string; headers: Record<string, string> } | undefined;
  const command = byCommand.settings.hooks.PostToolUse?.[0]?.hooks[0] as { type: string; command: string } | undefined;
  const prompt = byHttp.settings.hooks.UserPromptSubmit?.[0]?.hooks[0] as { command: string } | undefined;
  if (posted?.type !== 'http' || command?.type !== 'command' || !prompt)
    throw new Error('retrace install claude-code did not write the expected hooks');

  const session = `bench-hook-modes-${tree.manifest.spec.files}`;
  const transcript = path.join(base, `${session}.jsonl`);
  writeFileSync(transcript, '');
  const payload = (p: Record<string, unknown>): string =>
    JSON.stringify({ session_id: session, transcript_path: transcript, cwd: root, ...p });
  const shell = async (cmd: string, env: NodeJS.ProcessEnv, input: string): Promise<void> => {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', cmd], { cwd: root, env, stdio: ['pipe', 'ignore', 'ignore'] });
      child.once('error', reject);
      child.once('exit', resolve);
      child.stdin.end(input);
    });
    if (code !== 0) throw new Error(`the hook command exited ${code}`);
  };
  const post = async (body: string): Promise<void> => {
    const r = await fetch(posted.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...posted.headers },
      body,
    });
    await r.text();
    if (r.status !== 200) throw new Error(`the HTTP hook answered ${r.status}`);
  };
  let edit = 300_000;
  const pidFile = path.join(dataHome, 'hook-server', 'server.pid');
  const serverPid = (): number => {
    try {
      return Number(readFileSync(pidFile, 'utf8'));
    } catch {
      return 0;
    }
  };
  const toolCall = async (mode: 'hook-http' | 'hook-command'): Promise<{ ms: number; cpu: number }> => {
    const rel = (await applyEdits(root, tree.manifest, edit++, 1))[0]!;
    const file = path.join(root, rel);
    const body = payload({
      hook_event_name: 'PostToolUse',
      tool_name: 'Edit',
      tool_use_id: `toolu_${edit}`,
      tool_input: { file_path: file, old_string: 'a', new_string: 'b' },
      tool_response: { filePath: file, success: true },
    });
    await sleep(THINK_MS);
    const pid = serverPid();
    const c0 = processCpuMs(pid);
    const k0 = processCpuMs(process.pid);
    const t0 = performance.now();
    if (mode === 'hook-http') await post(body);
    else await shell(command.command, byCommand.env, body);
    const ms = performance.now() - t0;
    // The server's CPU and its reaped git children's, plus this process's own and its reaped children's (the
    // command hook's shell and node): what the call cost the machine, whatever the load made it wait.
    return { ms, cpu: processCpuMs(pid) - c0 + (processCpuMs(process.pid) - k0) };
  };

  try {
    // The turn's prompt: starts the server, checkpoints the whole folder (untimed).
    await shell(prompt.command, byHttp.env, payload({ hook_event_name: 'UserPromptSubmit', prompt: 'bench' }));
    await listening(new URL(posted.url).port);
    for (const mode of ['hook-http', 'hook-command'] as const) await toolCall(mode); // warm-up, untimed
    const times: Record<'hook-http' | 'hook-command', number[]> = { 'hook-http': [], 'hook-command': [] };
    const cpus: Record<'hook-http' | 'hook-command', number[]> = { 'hook-http': [], 'hook-command': [] };
    for (let i = 0; i < calls; i++) {
      for (const mode of i % 2 ? (['hook-command', 'hook-http'] as const) : (['hook-http', 'hook-command'] as const)) {
        const r = await toolCall(mode);
        times[mode].push(r.ms);
        cpus[mode].push(r.cpu);
      }
    }
    const viaServer = hookLog(dataHome).filter(
      (l) => l.includes(` ok PostToolUse ${session} `) && / via server$/.test(l),
    ).length;
    log(`  hook modes: ${viaServer} of ${2 * calls + 2} tool calls answered by the hook server`);
    return (['hook-http', 'hook-command'] as const).map((mode) => ({
      mode,
      times: times[mode],
      cpus: cpus[mode],
      medianMs: round1(median(times[mode])),
      p95Ms: round1(percentile(times[mode], 95)),
    }));
  } finally {
    await stopHookServer(pidFile);
  }
}

/** utime + stime + the children it reaped (cutime + cstime) of a process, in ms (Linux /proc; 0 elsewhere). */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return (ticks * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** USER_HZ: 100 on every Linux the bench runs on. */
const CLOCK_TICKS = 100;

function existsExe(file: string): boolean {
  try {
    readFileSync(file, { flag: 'r' });
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The lines of a data home's hook.log (none yet: empty). */
export function hookLog(dataHome: string): string[] {
  try {
    return readFileSync(path.join(dataHome, 'logs', 'hook.log'), 'utf8')
      .trim()
      .split('\n');
  } catch {
    return [];
  }
}

/** Wait (up to 30 s: a first checkpoint of 100k files) until the HTTP side accepts connections. */
async function listening(port: string): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.createConnection(Number(port), '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`the hook server did not listen on port ${port}`);
}

/** Stop the hook server whose pid file this is (TERM, then KILL after 2 s); nothing when none runs. */
export async function stopHookServer(pidFile: string): Promise<void> {
  let pid = 0;
  try {
    pid = Number(readFileSync(pidFile, 'utf8'));
  } catch {
    return;
  }
  const alive = (): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!pid || !alive()) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && alive(); i++) await sleep(20);
  if (alive()) process.kill(pid, 'SIGKILL');
}

/** The machine's load, for the log line beside the numbers. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

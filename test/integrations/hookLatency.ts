/**
 * The cost of one hook call as an agent pays it: `node bin/retrace.js hook AGENT` with the payload on stdin,
 * answered by the resident hook server (the first call of a data home runs in-process and starts it). The
 * server a measurement starts is killed afterwards.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { hookServerPaths } from '../../src/main/cli/hookServer/paths';
import { pidAlive } from '../../src/main/engine/pidAlive';
import { runCli } from '../helpers';

const SERVER_ON = { RETRACE_HOOK_SERVER: undefined, RETRACE_HOOK_TRACE: '1' };

export interface Latency {
  /** Milliseconds of each measured call, in order. */
  ms: number[];
  median: number;
  /** Calls the server answered (hook.log says "via server"). */
  viaServer: number;
}

/** Start the server with `warmup`, then time `payloads` one after another. */
export async function measureHookLatency(opts: {
  agent: string;
  home: string;
  cwd: string;
  env?: Record<string, string | undefined>;
  warmup: string;
  payloads: string[];
  /** What the agent gets on stdout (default `{}`, Codex's and Gemini's "go on"). */
  stdout?: string;
}): Promise<Latency> {
  const env = { ...opts.env, ...SERVER_ON };
  const paths = hookServerPaths(opts.home);
  let pid = 0;
  try {
    const first = await runCli(['hook', opts.agent], { home: opts.home, env, cwd: opts.cwd, input: opts.warmup });
    if (first.code !== 0) throw new Error(`warm-up call failed: ${first.stderr}`);
    pid = await serverUp(paths.pidFile, paths.socket);
    const ms: number[] = [];
    for (const input of opts.payloads) {
      const r = await runCli(['hook', opts.agent], { home: opts.home, env, cwd: opts.cwd, input });
      if (r.code !== 0 || r.stdout !== (opts.stdout ?? '{}\n'))
        throw new Error(`hook call failed: ${r.code} ${r.stdout} ${r.stderr}`);
      ms.push(r.ms);
    }
    const log = readFileSync(`${opts.home}/logs/hook.log`, 'utf8');
    const viaServer = log.split('\n').filter((l) => / ok .* via server$/.test(l)).length;
    const sorted = [...ms].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    return { ms, median, viaServer };
  } finally {
    if (pid) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

async function serverUp(pidFile: string, socket: string): Promise<number> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    let pid = 0;
    try {
      pid = Number(readFileSync(pidFile, 'utf8'));
    } catch {
      // not yet
    }
    if (pid && pidAlive(pid) && (await connects(socket))) return pid;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the hook server did not start');
}

function connects(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createConnection(socket);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Child processes for the baselines, and peak-RSS probes.
 *
 * Peak RSS is measured with GNU time (`/usr/bin/time -f %M`), which reports the wait4() ru_maxrss of the
 * process it runs: the largest resident set of that process or of any descendant it waited for (a maximum
 * over the tree, not a sum). Timed runs never go through the wrapper; one extra, untimed "probe" run of each
 * operation does, so the wrapper's fork/exec cost never lands in a median.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addTrace, startCounting, underStrace } from './processCount';

export const TIME_BIN = '/usr/bin/time';

/** While a probe runs, every child is wrapped and the largest ru_maxrss (KiB) is kept. */
export const probe = { active: false, peakKb: 0 };

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string | Buffer;
  /** Exit codes that are not failures. */
  ok?: number[];
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
  status: number;
}

/** git with no user or system config and a fixed identity (every git the bench runs itself). */
export function isolatedGitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: os.tmpdir(),
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.invalid',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  };
}

/** Run a program (no shell); throws on an unexpected exit code. */
export function run(cmd: string, args: string[], opts: RunOptions = {}): RunResult {
  let file = cmd;
  let argv = args;
  let rssDir: string | null = null;
  if (probe.active) {
    rssDir = mkdtempSync(path.join(os.tmpdir(), 'retrace-bench-rss-'));
    file = TIME_BIN;
    argv = ['-f', '%M', '-o', path.join(rssDir, 'kb'), ...underStrace(cmd, args, path.join(rssDir, 'trace')).flat()];
  }
  const r = spawnSync(file, argv, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    input: opts.input,
    maxBuffer: 1 << 30,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (rssDir) {
    try {
      const kb = Number(readFileSync(path.join(rssDir, 'kb'), 'utf8').trim().split('\n').pop());
      if (Number.isFinite(kb)) probe.peakKb = Math.max(probe.peakKb, kb);
      addTrace(path.join(rssDir, 'trace'));
    } finally {
      rmSync(rssDir, { recursive: true, force: true });
    }
  }
  if (r.error) throw r.error;
  const status = r.status ?? -1;
  if (!(opts.ok ?? [0]).includes(status)) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${status}: ${r.stderr.toString().slice(0, 500)}`);
  }
  return { stdout: r.stdout, stderr: r.stderr.toString(), status };
}

/** Run `fn` with every child wrapped by GNU time; returns the peak RSS in bytes (0 if nothing ran). */
export async function measurePeak(fn: () => Promise<unknown>, opts: { count?: boolean } = {}): Promise<number> {
  probe.active = true;
  probe.peakKb = 0;
  // Git processes and fsyncs of this run (processCount.ts): takeCounts() after it. Not for a call that may start
  // the resident hook server: strace -f follows the daemon and would wait for it to exit (10 idle minutes).
  if (opts.count !== false) startCounting();
  try {
    await fn();
    return probe.peakKb * 1024;
  } finally {
    probe.active = false;
  }
}

/**
 * CPU time used so far by this process and its waited-for children (user + system), in ms. Children come
 * from /proc/self/stat (cutime, cstime: clock ticks, 10 ms on Linux), so short operations read coarsely;
 * medians over runs smooth that. CPU time barely moves with other load on the machine, wall time does.
 */
export function cpuMs(): number {
  const self = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is state (field 3); cutime and cstime are fields 16 and 17.
    children = ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
  } catch {
    // not Linux: self only
  }
  return (self.user + self.system) / 1000 + children;
}

const CLOCK_TICKS = 100;

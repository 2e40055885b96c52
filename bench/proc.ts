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

/** Run a program (no shell); throws on an unexpected exit code. */
export function run(cmd: string, args: string[], opts: RunOptions = {}): RunResult {
  let file = cmd;
  let argv = args;
  let rssDir: string | null = null;
  if (probe.active) {
    rssDir = mkdtempSync(path.join(os.tmpdir(), 'retrace-bench-rss-'));
    file = TIME_BIN;
    argv = ['-f', '%M', '-o', path.join(rssDir, 'kb'), cmd, ...args];
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
export async function measurePeak(fn: () => Promise<unknown>): Promise<number> {
  probe.active = true;
  probe.peakKb = 0;
  try {
    await fn();
    return probe.peakKb * 1024;
  } finally {
    probe.active = false;
  }
}

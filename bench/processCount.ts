/**
 * Git processes and fsyncs per operation (issue 15: "count git processes per operation in the bench").
 *
 * The untimed probe run of each operation (proc.ts measurePeak) already runs every child through a wrapper;
 * while it does, the child also runs under `strace -f`, tracing only execve, fsync, fdatasync and syncfs (and the
 * access(2) of a marker), so the count covers the child and everything it starts: for Retrace the probe
 * process (bench/probe.ts) and its git children, for raw git each git call. A syncfs (one sync of a whole file
 * system) counts as one sync among the fsyncs. The probe touches OP_MARK right
 * before its operation, so opening the workspace in that fresh process is not counted. Timed runs never go
 * through strace. Where strace is missing, nothing is counted (the fields stay absent).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A path nobody creates: the probe looks it up right before its operation, which marks the trace. */
export const OP_MARK = '/.retrace-bench-operation-starts-here';

export interface ProcessCounts {
  gitProcesses: number;
  fsyncs: number;
}

const hasStrace = spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;

/** Counts of the probe run in progress (summed over its child processes); null when not counting. */
let current: ProcessCounts | null = null;

export function startCounting(): void {
  current = hasStrace ? { gitProcesses: 0, fsyncs: 0 } : null;
}

/** The counts since startCounting(), and stop. */
export function takeCounts(): ProcessCounts | null {
  const c = current;
  current = null;
  return c;
}

/** The command line that runs `cmd args` under strace, writing its trace to `traceFile`; as is when not counting. */
export function underStrace(cmd: string, args: string[], traceFile: string): [string, string[]] {
  if (!current) return [cmd, args];
  const traced = 'execve,fsync,fdatasync,syncfs,access,faccessat,faccessat2';
  return ['strace', ['-f', '-qq', '-e', `trace=${traced}`, '-e', 'signal=none', '-o', traceFile, cmd, ...args]];
}

/** Add what one traced child did (from the marker on, if it has one) to the running counts. */
export function addTrace(traceFile: string): void {
  if (!current || !existsSync(traceFile)) return;
  let lines = readFileSync(traceFile, 'utf8').split('\n');
  const mark = lines.findIndex((l) => l.includes(OP_MARK));
  if (mark >= 0) lines = lines.slice(mark + 1);
  // A call another thread interrupts is split ("<unfinished ...>", later "<... resumed>"): count its first line.
  // execvp tries each PATH folder in turn: the misses end in "= -1 ENOENT".
  for (const l of lines) {
    const exec = /execve\("([^"]+)"/.exec(l);
    if (exec) {
      if (path.basename(exec[1]!) === 'git' && !/ = -1 /.test(l)) current.gitProcesses++;
    } else if (/\b(fsync|fdatasync|syncfs)\(/.test(l)) current.fsyncs++; // a syncfs counts as one sync
  }
}

/** "git 12 · fsync 3" for the log. */
export function describeCounts(c: ProcessCounts | null | undefined): string {
  return c ? `, git ${c.gitProcesses} · fsync ${c.fsyncs}` : '';
}

/** The report's table of counts for one tree size: "git processes · fsyncs" per operation and method. */
export function countsTable(
  rows: readonly { operation: string; method: string; gitProcesses?: number; fsyncs?: number }[],
  operations: readonly string[],
  methods: readonly string[],
): string[] {
  const counted = rows.filter((r) => r.gitProcesses !== undefined);
  if (counted.length === 0) return [];
  const present = methods.filter((m) => counted.some((r) => r.method === m));
  const out = [
    'Git processes · fsyncs per operation (its probe run under `strace -f`, bench/processCount.ts)',
    '',
    `| operation | ${present.join(' | ')} |`,
    `|---|${present.map(() => '---').join('|')}|`,
  ];
  for (const op of operations) {
    const cells = present.map((m) => {
      const r = counted.find((x) => x.operation === op && x.method === m);
      return r ? `${r.gitProcesses} · ${r.fsyncs}` : '';
    });
    if (cells.some((c) => c !== '')) out.push(`| ${op} | ${cells.join(' | ')} |`);
  }
  out.push('');
  return out;
}

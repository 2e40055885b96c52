/**
 * Where a restore's and an undo's time goes (issue 15 item 2), step by step: the bench's restore (10
 * checkpoints back on a copy of a generated tree, through the service as the app calls it), repeated, with the
 * transaction's steps timed (stepTrace.ts) and raw git's `read-tree -m -u` + `checkout-index -a -f` interleaved
 * on a second copy for the ratio.
 *
 *   npx tsx bench/restoreProfile.ts --files 1000 --runs 7 [--ab RETRACE_FAST_PATHS=0] [--cpu-prof FILE]
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import os from 'node:os';
import { traceSteps } from '../src/main/engine/stepTrace';
import { applyEdits } from './generate';
import { sideBySide } from './sideBySide';
import { arg } from './args';
import { settleDisk } from './settleDisk';
import { median } from './stats';

const FILES = Number(arg('--files', '1000'));
const RUNS = Number(arg('--runs', '7'));

/** CPU of this process's waited-for children (git, sync), in clock ticks (/proc/self/stat cutime + cstime). */
const childTicks = (): number => {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return Number(f[13]) + Number(f[14]);
};

async function main(): Promise<void> {
  const { tree, dir, ours, theirs, client, git, commitAll } = await sideBySide(FILES, 'retrace-rprof-');
  const gitCommits = [commitAll()];
  const hashes = [await client.checkpoint(null)];
  for (let k = 0; k < 10; k++) {
    await applyEdits(ours, tree.manifest, k);
    await applyEdits(theirs, tree.manifest, k);
    hashes.push(await client.checkpoint(null));
    gitCommits.push(commitAll());
  }
  const target = hashes[0]!;
  // Untimed, after each raw git run: git leaves the 1,000 files checkout-index rewrote unsynced, and the restore that
  // follows would pay for flushing them in its own syncs (settleDisk.ts).
  const times: Record<string, number[]> = { restore: [], undo: [], 'git-restore': [], 'git-undo': [] };
  const steps: Record<string, Record<string, number[]>> = { restore: {}, undo: {} };
  const cpu: Record<string, { own: number[]; children: number[] }> = {};
  const timed = async (name: string, fn: () => Promise<unknown> | unknown): Promise<string> => {
    const c0 = process.cpuUsage();
    const k0 = childTicks();
    const t0 = performance.now();
    const { steps: s } = await traceSteps(async () => fn());
    times[name]!.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    const own = (cpu[name] ??= { own: [], children: [] });
    own.own.push((c.user + c.system) / 1000);
    own.children.push((childTicks() - k0) * 10);
    return s;
  };
  // --cpu-prof FILE: a CPU profile of the timed loop only (chrome devtools format).
  const profileTo = process.argv.includes('--cpu-prof') ? arg('--cpu-prof', '') : '';
  const session = profileTo ? new Session() : null;
  if (session) {
    session.connect();
    await new Promise((r) => session.post('Profiler.enable', () => session.post('Profiler.start', r)));
  }
  // --ab NAME=VALUE: every other round with that variable set (RETRACE_SYNCFS=0: per-file fsyncs;
  // RETRACE_FAST_PATHS=0: no staging of what a restore wrote), timed apart as "restore/NAME=VALUE".
  const abSpec = process.argv.includes('--ab') ? arg('--ab', '') : '';
  const [abName, abValue] = abSpec.split('=') as [string, string | undefined];
  const ab = abSpec !== '';
  const other = ab ? `/${abSpec}` : '';
  if (ab) for (const k of ['restore', 'undo']) times[k + other] = [];
  for (let i = 0; i <= RUNS; i++) {
    const varied = ab && i % 2 === 1;
    if (ab) {
      if (varied) process.env[abName] = abValue ?? '';
      else delete process.env[abName];
    }
    const head = gitCommits[gitCommits.length - 1]!;
    await timed('git-restore', () => {
      git('read-tree', '-m', '-u', gitCommits[0]!);
      git('checkout-index', '-a', '-f');
    });
    await settleDisk(dir);
    const rs = await timed(varied ? `restore${other}` : 'restore', () => client.restore(target));
    await timed('git-undo', () => {
      git('read-tree', '-m', '-u', head);
      git('checkout-index', '-a', '-f');
    });
    await settleDisk(dir);
    const us = await timed(varied ? `undo${other}` : 'undo', () => client.undo());
    for (const [op, s] of [
      [varied ? `restore${other}` : 'restore', rs],
      [varied ? `undo${other}` : 'undo', us],
    ] as const) {
      const sums = new Map<string, number>(); // a step timed several times in one run: its total
      for (const part of s.split(' ').filter(Boolean)) {
        const [k, v] = part.split('=');
        sums.set(k!, (sums.get(k!) ?? 0) + Number(v));
      }
      for (const [k, v] of sums) ((steps[op] ??= {})[k] ??= []).push(v);
    }
    if (i === 0) for (const k of Object.keys(times)) times[k] = []; // the first round warms up
  }
  if (session)
    await new Promise<void>((r) =>
      session.post('Profiler.stop', (err, res) => {
        if (!err) writeFileSync(profileTo, JSON.stringify(res.profile));
        r();
      }),
    );
  const load = os.loadavg()[0]!.toFixed(2);
  // Node's spawn() blocks the main thread for the fork and the child's exec, longer the more memory this process maps.
  const mem = process.memoryUsage();
  const mb = (n: number): string => (n / 1e6).toFixed(0);
  console.log(`files ${FILES}, runs ${RUNS}, load ${load}, rss ${mb(mem.rss)} MB, heap ${mb(mem.heapUsed)} MB`);
  for (const [k, v] of Object.entries(times))
    console.log(
      `${k.padEnd(12)} median ${median(v).toFixed(1)} ms, cpu own ${median(cpu[k]!.own).toFixed(0)} ms + children ${median(cpu[k]!.children).toFixed(0)} ms`,
    );
  console.log(
    `ratio restore ${(median(times.restore!) / median(times['git-restore']!)).toFixed(2)}×, undo ${(median(times.undo!) / median(times['git-undo']!)).toFixed(2)}×`,
  );
  // A step that ran in only some rounds says in how many: its median is of those.
  const runsOf = (op: string): number => Math.max(...Object.values(steps[op]!).map((v) => v.length));
  // Each variant's steps apart (--ab): the steps of the rounds with the variable set are "restore/NAME=VALUE".
  for (const op of Object.keys(steps))
    console.log(
      `${op} steps: ${Object.entries(steps[op]!)
        .map(([k, v]) => `${k}=${median(v).toFixed(1)}${v.length < runsOf(op) ? ` (in ${v.length})` : ''}`)
        .join(' ')}`,
    );
  await client.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

void main();

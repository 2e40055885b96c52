/**
 * `npm run bench` — Retrace against raw git, the legacy shadow-git method and a plain copy, on identical
 * copies of generated trees (1k, 10k, 100k files), in one run. Writes bench/results/latest.json and
 * docs/benchmarks.md. `npm run bench -- --quick`: 1k and 10k files at a quarter of the sizes, fewer runs.
 *
 * Flags: --quick, --sizes 1000,10000, --methods raw-git,legacy,…, --ops incremental-checkpoint,…, --seed N,
 * --out FILE, --no-docs, --imports 1,10,100 (MB; --imports none skips; with --ops, only when it lists import),
 * --keep (leave the run's copies).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { build } from 'esbuild';
import { measureFloor, RUNGS } from './fsFloor';
import { applyEdits, BENCH_HOME, generateTree, type GeneratedTree } from './generate';
import { benchHookModes, hookLog as hookLogLines, loadAverage, stopHookServer } from './hookModes';
import { CopyMethod } from './methods/copy';
import { LegacyMethod } from './methods/legacy';
import { benchLiveFollow } from './liveFollow';
import { RawGitMethod } from './methods/rawGit';
import { hookServerPaths } from '../src/main/cli/hookServer/paths';
import type { MessageEvent } from '../src/main/engine/sessions/events';
import type { RetraceMethod } from './methods/retrace';
import type { BenchMethod, MethodName, Operation } from './methods/types';
import { benchImports, importMarkdown, type ImportRow } from './importRows';
import { cpuMs, measurePeak, run } from './proc';
import { settleDisk } from './settleDisk';
import { describeCounts, takeCounts, type ProcessCounts } from './processCount';
import { renderMarkdown, type ReportNotes } from './report';
import { judgeTargets } from './targets';
import { median, percentile, round1, type BenchResults, type MachineInfo, type RunRow, type StorageRow } from './stats';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const flag = (name: string): boolean => argv.includes(name);
const option = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};

const QUICK = flag('--quick');
const SEED = Number(option('--seed') ?? 42);
const SIZES = (option('--sizes') ?? (QUICK ? '1000,10000' : '1000,10000,100000')).split(',').map(Number);
const OUT = path.resolve(option('--out') ?? path.join(REPO, 'bench/results/latest.json'));
const DOCS = path.join(REPO, 'docs/benchmarks.md');
const SIZE_SCALE = QUICK ? 0.25 : 1;
const STORAGE_CHECKPOINTS = 100;
const TIMELINE_MESSAGES = 10_000;
const ALL_METHODS: MethodName[] = ['raw-git', 'legacy', 'retrace', 'retrace-warm', 'copy'];
const METHODS = (option('--methods')?.split(',') ?? ALL_METHODS) as MethodName[];
/** --ops a,b: measure only these operations (the others' setup still runs untimed); storage only without it. */
const OPS_ONLY = option('--ops')?.split(',') as Operation[] | undefined;
const wanted = (op: Operation): boolean => !OPS_ONLY || OPS_ONLY.includes(op);

/** Timed runs per operation (each after one untimed warm-up run, which is also the peak-RSS probe). */
function runsFor(files: number, op: Operation, method: string): number {
  // A copy of the tree costs seconds at 10k+ files (file creation dominates): fewer runs, said in the docs;
  // at 100k files a single run (0 = no separate warm-up), ~30–60 s each.
  if (method === 'copy') return files >= 100_000 ? 0 : QUICK ? 1 : 3;
  if (QUICK) return op === 'first-checkpoint' ? 2 : 3;
  // ~20–80 s each at 100k files on a busy 2-core machine: 2 timed runs after the warm-up.
  if (files >= 100_000 && op === 'first-checkpoint') return 2;
  // Small trees: operations of 10–50 ms, where one busy moment of the machine moved a median of 5 by 15–30%
  // (1k cold incremental: 1.11x, 1.23x and 1.79x in runs with no code change between). 11 cost seconds; at 1k
  // files 31 (a median of 11 of the restore still moved by a fifth between runs of the same code, 2026-12-06).
  if (files <= 1_000) return 31;
  if (files <= 10_000) return 11;
  return 5;
}

const log = (line: string): void => {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

function machine(): MachineInfo {
  const fsType = spawnSync('findmnt', ['-n', '-o', 'FSTYPE', '-T', os.tmpdir()]).stdout?.toString().trim() || 'unknown';
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    ramBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    git: execFileSync('git', ['--version'])
      .toString()
      .trim()
      .replace(/^git version /, ''),
    fs: `${fsType} (${os.tmpdir()})`,
    commit: measuredCommit(),
    loadAverage: { start: os.loadavg().map((x) => Math.round(x * 100) / 100), end: [] },
  };
}

function measuredCommit(): string {
  const head = spawnSync('git', ['-C', REPO, 'rev-parse', '--short=12', 'HEAD']).stdout?.toString().trim() || 'unknown';
  const dirty = spawnSync('git', [
    '-C',
    REPO,
    'diff',
    '--quiet',
    'HEAD',
    '--',
    'src/main/engine',
    'src/main/service.ts',
  ]).status;
  return dirty === 0 ? head : `${head}-dirty`;
}

/** The probe bundle: one Retrace operation per process, for peak RSS (see bench/probe.ts). */
async function buildProbe(): Promise<string> {
  const outfile = path.join(REPO, 'out/bench/probe.js');
  await build({
    entryPoints: [path.join(REPO, 'bench/probe.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    external: ['electron'],
    logLevel: 'warning',
  });
  return outfile;
}

/** The Claude Code hook if the CLI has it, else `retrace checkpoint` (both: the real CLI process per call). */
function hookMode(): 'hook' | 'checkpoint' {
  const r = spawnSync(process.execPath, [path.join(REPO, 'bin/retrace.js'), 'hook', 'claude-code', '--help'], {
    env: { ...process.env, RETRACE_HOME: path.join(BENCH_HOME, 'probe-home') },
    input: '',
  });
  const text = `${r.stdout?.toString() ?? ''}${r.stderr?.toString() ?? ''}`;
  return /unknown command|not built/i.test(text) || r.status === 2 ? 'checkpoint' : 'hook';
}

/**
 * The RSS probe is the warm-up, but Retrace's runs in a process of its own (bench/probe.ts): the first timed call
 * was the first of its kind in the measuring process, its code not yet compiled (a 1k restore: ~100 ms against
 * ~35). So every method makes one more untimed call in the measuring process — all of them, so that each works
 * through the same sequence of edits — except where a run is costly and few are made (a 100k first checkpoint).
 */
const WARM_UP_HERE_MIN_RUNS = 3;

class Recorder {
  readonly rows: RunRow[] = [];
  /** Median CPU ms per row (same order as rows): reported in the markdown, not in the JSON (fixed shape). */
  readonly cpu: number[] = [];
  constructor(private readonly files: number) {}

  /**
   * Warm-up (RSS probe, and one more untimed call here: WARM_UP_HERE) then `runs` timed calls of `fn`, each after an
   * untimed `prep`.
   */
  async measure<T>(
    method: BenchMethod | { name: RunRow['method'] },
    op: Operation,
    runs: number,
    prep: () => Promise<T>,
    fn: (x: T) => Promise<unknown>,
  ): Promise<void> {
    const times: number[] = [];
    const cpus: number[] = [];
    if (runs === 0) {
      // One run only (a copy of 100k files): it is timed and is also the peak-RSS probe; GNU time adds ~1 ms.
      const x = await prep();
      const c0 = cpuMs();
      const t0 = performance.now();
      const peak = await measurePeak(() => fn(x));
      times.push(performance.now() - t0);
      cpus.push(cpuMs() - c0);
      this.add(method.name, op, times, peak, cpus, takeCounts());
      return;
    }
    const first = await prep();
    const peak = await measurePeak(() => fn(first), { count: op !== 'hook' });
    const counts = takeCounts();
    if (runs >= WARM_UP_HERE_MIN_RUNS) await fn(await prep());
    for (let i = 0; i < runs; i++) {
      const x = await prep();
      const c0 = cpuMs();
      const t0 = performance.now();
      await fn(x);
      times.push(performance.now() - t0);
      cpus.push(cpuMs() - c0);
    }
    this.add(method.name, op, times, peak, cpus, counts);
  }

  add(
    method: RunRow['method'],
    operation: Operation,
    times: number[],
    peakRssBytes: number,
    cpus: number[],
    counts: ProcessCounts | null = null,
  ): void {
    const row: RunRow = {
      files: this.files,
      operation,
      method,
      medianMs: round1(median(times)),
      minMs: round1(Math.min(...times)),
      maxMs: round1(Math.max(...times)),
      p95Ms: round1(percentile(times, 95)),
      peakRssBytes,
      ...counts,
    };
    this.rows.push(row);
    this.cpu.push(round1(median(cpus)));
    log(
      `  ${method.padEnd(12)} ${operation.padEnd(22)} median ${row.medianMs} ms (${row.minMs}–${row.maxMs}), cpu ${this.cpu.at(-1)} ms, peak ${(peakRssBytes / 2 ** 20).toFixed(0)} MB${describeCounts(counts)}`,
    );
  }
}

/**
 * The operation sequence every method goes through, with the same edits in the same order, as phases: the
 * runner runs phase 1 for every method, then phase 2 for every method, and so on, so a burst of load on the
 * machine lands on all methods alike rather than on whichever happened to be running.
 */
function benchPhases(m: BenchMethod, tree: GeneratedTree, rec: Recorder): (() => Promise<void>)[] {
  const files = tree.manifest.spec.files;
  const supports = (op: Operation): boolean => m.operations.includes(op) && wanted(op);
  const prune = async (): Promise<void> => {
    if (m instanceof CopyMethod) await m.prune();
  };
  let edit = 0;
  const edited: string[][] = [];
  const nextEdit = async (count = 10): Promise<string[]> => {
    await prune();
    const paths = await applyEdits(m.root, tree.manifest, edit, count);
    edited[edit++] = paths;
    return paths;
  };
  const runs = (op: Operation): number => runsFor(files, op, m.name);

  const first = async (): Promise<void> => {
    log(`${files} files: ${m.name}`);
    if (supports('first-checkpoint')) {
      await rec.measure(
        m,
        'first-checkpoint',
        runs('first-checkpoint'),
        () => m.reset(),
        () => m.checkpoint(null),
      );
    } else {
      await m.reset();
      await m.checkpoint(null);
    }
  };
  const noChange = async (): Promise<void> => {
    if (!supports('no-change-checkpoint')) return;
    await rec.measure(m, 'no-change-checkpoint', runs('no-change-checkpoint'), prune, () => m.checkpoint([]));
  };
  const incremental = async (): Promise<void> => {
    const incRuns = runs('incremental-checkpoint');
    if (!supports('incremental-checkpoint')) {
      if (wanted('restore') || wanted('diff-summary'))
        for (let i = 0; i < 10; i++) await m.checkpoint(await nextEdit());
      return;
    }
    await rec.measure(
      m,
      'incremental-checkpoint',
      incRuns,
      () => nextEdit(),
      (paths) => m.checkpoint(paths),
    );
    // Restore goes 10 checkpoints back: make the newest 10 all edits (untimed). A copy costs the same whichever
    // copy it restores, so the copy method restores its oldest instead of paying for ten more full copies.
    if (!(m instanceof CopyMethod)) for (let i = incRuns + 1; i < 10; i++) await m.checkpoint(await nextEdit());
    await prune();
  };
  const reads = async (): Promise<void> => {
    if (!supports('diff-summary')) return;
    // A different step each run: the service caches the summary of a commit pair, and the app's cost is the miss.
    let step = 0;
    const nextStep = async (): Promise<[string, string]> => {
      const k = step++ % 9;
      return [await m.checkpointId(k + 1), await m.checkpointId(k)];
    };
    await rec.measure(m, 'diff-summary', runs('diff-summary'), nextStep, ([from, to]) => m.diffSummary(from, to));
    step = 0;
    const fileOf = async (): Promise<[string, string, string]> => {
      const [from, to] = await nextStep();
      // The newest 10 checkpoints are edits, newest last: step k back was made by edit (edit - 1 - k).
      const rel = edited[edit - 1 - ((step - 1) % 9)]![0]!;
      return [from, to, rel];
    };
    await rec.measure(m, 'file-contents', runs('file-contents'), fileOf, ([from, to, rel]) =>
      m.fileContents(from, to, rel),
    );
  };
  const restores = async (): Promise<void> => {
    if (!supports('restore')) return;
    const target = await m.checkpointId(10);
    const restoreTimes: number[] = [];
    const undoTimes: number[] = [];
    const restoreCpu: number[] = [];
    const undoCpu: number[] = [];
    if (runs('restore') === 0) {
      // One timed run that is also the peak-RSS probe (see Recorder.measure).
      for (const [op, f, times, cpus] of [
        ['restore', () => m.restore(target), restoreTimes, restoreCpu],
        ['undo', () => m.undo(), undoTimes, undoCpu],
      ] as const) {
        const c0 = cpuMs();
        const t0 = performance.now();
        const peak = await measurePeak(f);
        times.push(performance.now() - t0);
        cpus.push(cpuMs() - c0);
        rec.add(m.name, op, times, peak, cpus, takeCounts());
      }
      return;
    }
    const restorePeak = await measurePeak(() => m.restore(target));
    const restoreCounts = takeCounts();
    const undoPeak = await measurePeak(() => m.undo());
    const undoCounts = takeCounts();
    if (runs('restore') >= WARM_UP_HERE_MIN_RUNS) {
      await m.restore(target);
      await m.undo();
    }
    for (let i = 0; i < runs('restore'); i++) {
      let c0 = cpuMs();
      let t0 = performance.now();
      await m.restore(target);
      restoreTimes.push(performance.now() - t0);
      restoreCpu.push(cpuMs() - c0);
      c0 = cpuMs();
      t0 = performance.now();
      await m.undo();
      undoTimes.push(performance.now() - t0);
      undoCpu.push(cpuMs() - c0);
    }
    rec.add(m.name, 'restore', restoreTimes, restorePeak, restoreCpu, restoreCounts);
    rec.add(m.name, 'undo', undoTimes, undoPeak, undoCpu, undoCounts);
  };
  return [first, noChange, incremental, reads, restores];
}

/** The same hook call in-process (RETRACE_HOOK_SERVER=0), per tree size: the report's Hook note. */
const hookInProcess = new Map<number, { medianMs: number; viaServer: string }>();

/**
 * The hook's cost per call: the real CLI process, one edited file per call, as an agent's Edit would be. As
 * users get it: the untimed warm-up call runs in-process and starts the hook server, the timed calls go
 * through it; then the same calls in-process, for the note. The server is stopped at the end.
 */
async function benchHook(
  m: RetraceMethod,
  tree: GeneratedTree,
  rec: Recorder,
  mode: 'hook' | 'checkpoint',
): Promise<void> {
  const files = tree.manifest.spec.files;
  let edit = 100_000;
  // RETRACE_HOOK_TRACE: each call's hook.log line says whether the server answered it.
  const env: NodeJS.ProcessEnv = { ...process.env, RETRACE_HOME: m.dataHome, RETRACE_HOOK_TRACE: '1' };
  delete env.RETRACE_HOOK_SERVER;
  const cli = path.join(REPO, 'bin/retrace.js');
  const server = hookServerPaths(m.dataHome);
  const hook = (rel: string, callEnv: NodeJS.ProcessEnv): void => {
    const payload = {
      hook_event_name: 'PostToolUse',
      session_id: 'bench-hook-session',
      transcript_path: path.join(m.dataHome, 'no-transcript.jsonl'),
      cwd: m.root,
      tool_name: 'Edit',
      tool_input: { file_path: path.join(m.root, rel), old_string: 'a', new_string: 'b' },
      tool_response: { filePath: path.join(m.root, rel), success: true },
    };
    run(process.execPath, [cli, 'hook', 'claude-code'], { cwd: m.root, env: callEnv, input: JSON.stringify(payload) });
  };
  const runs = runsFor(files, 'hook', m.name);
  let preps = 0;
  try {
    await rec.measure(
      m,
      'hook',
      runs,
      async () => {
        const rel = (await applyEdits(m.root, tree.manifest, edit++, 1))[0]!;
        // Untimed: the server the warm-up call started is listening before a timed call.
        if (mode === 'hook' && preps++ > 0) await listening(server.socket);
        return rel;
      },
      async (rel) => {
        if (mode === 'checkpoint') {
          run(process.execPath, [cli, 'checkpoint', '--session', 'bench-hook', '--json'], { cwd: m.root, env });
          return;
        }
        hook(rel, env);
      },
    );
    if (mode !== 'hook') return;
    const viaServer = hookLogLines(m.dataHome)
      .slice(-runs)
      .filter((l) => / via server$/.test(l)).length;
    const times: number[] = [];
    for (let i = 0; i < Math.max(runs, 1); i++) {
      const rel = (await applyEdits(m.root, tree.manifest, edit++, 1))[0]!;
      const t0 = performance.now();
      hook(rel, { ...env, RETRACE_HOOK_SERVER: '0' });
      times.push(performance.now() - t0);
    }
    const inProcess = { medianMs: round1(median(times)), viaServer: `${viaServer}/${runs}` };
    hookInProcess.set(files, inProcess);
    log(
      `  hook timed calls answered by the server: ${inProcess.viaServer}; in-process (RETRACE_HOOK_SERVER=0) median ${inProcess.medianMs} ms`,
    );
  } finally {
    await stopHookServer(server.pidFile);
  }
}

/** Wait (up to 10 s) until the hook server accepts connections; then go on either way. */
async function listening(socket: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.createConnection(socket);
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  log('  the hook server did not start: timed hook calls ran in-process');
}

/** A page of a 10,000-message session, read the way the app's timeline reads it. */
async function benchTimeline(m: RetraceMethod, rec: Recorder): Promise<void> {
  const client = await m.open();
  // Setup only: the messages go into the session log in one append (the coordinator would take the lock
  // 10,000 times); what is timed is the service reading them back.
  const sessionId = 'bench-timeline';
  await client.engine.write(async () => {
    client.engine.sessions.create(sessionId, { title: 'bench timeline' });
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const events: MessageEvent[] = Array.from({ length: TIMELINE_MESSAGES }, (_, i) => ({
      type: 'message',
      id: `m_bench_${i.toString().padStart(5, '0')}`,
      ts: new Date(t0 + i * 1000).toISOString(),
      role: (['user', 'assistant', 'tool'] as const)[i % 3]!,
      text: `message ${i}: ${'lorem ipsum '.repeat(1 + (i % 20))}`,
    }));
    client.engine.sessions.append(sessionId, events);
  });
  await rec.measure(
    m,
    'timeline-page',
    runsFor(0, 'timeline-page', m.name),
    async () => {},
    () => m.timelinePage(sessionId),
  );
}

/** Store after 100 small-edit checkpoints, against one packed copy of the same snapshot. */
async function benchStorage(m: RetraceMethod, tree: GeneratedTree): Promise<StorageRow> {
  await m.reset();
  await m.checkpoint(null);
  const firstTree = await m.checkpointId(0);
  // Hinted (warm) checkpoints: the store holds the same objects either way, and at 100k files it saves minutes.
  const client = await m.open();
  for (let i = 0; i < STORAGE_CHECKPOINTS; i++) {
    await client.checkpoint(await applyEdits(m.root, tree.manifest, 200_000 + i, 10), 'bench-storage');
  }
  // The store at rest: once the upkeep that checkpoints schedule has run (back to back, as here, each of its
  // tries finds the writer lock taken; between an agent's tool calls it finds it free).
  await client.engine.maintenance();
  const storeBytes = await m.storeBytes();
  const gitDir = path.join(client.ws.dir, 'shadow.git');
  const env = { ...process.env, GIT_DIR: gitDir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  const objects = run('git', ['rev-list', '--objects', '--no-walk', `${firstTree}^{tree}`], { env }).stdout;
  const packed = spawnSync('git', ['pack-objects', '--stdout', '-q'], { env, input: objects, maxBuffer: 4 << 30 });
  if (packed.status !== 0) throw new Error(`pack-objects failed: ${packed.stderr}`);
  return {
    files: tree.manifest.spec.files,
    checkpoints: STORAGE_CHECKPOINTS,
    storeBytes,
    packedCopyBytes: packed.stdout.length,
  };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  log(`bench ${QUICK ? '--quick ' : ''}sizes ${SIZES.join(', ')}, seed ${SEED}`);
  const wantsRetrace = METHODS.some((x) => x.startsWith('retrace'));
  // The hook is measured through the real CLI bundle: build it as `npm run build:cli` would.
  if (wantsRetrace) execFileSync(process.execPath, [path.join(REPO, 'scripts/build-cli.mjs')], { stdio: 'inherit' });
  // Loaded only when measured, so the baselines run even where the engine does not build.
  const { RetraceMethod } = wantsRetrace ? await import('./methods/retrace') : { RetraceMethod: null };
  const probeScript = wantsRetrace ? await buildProbe() : '';
  const mode = wantsRetrace ? hookMode() : 'checkpoint';
  const results: BenchResults = { machine: machine(), runs: [], storage: [] };
  const cpuByRow = new Map<RunRow, number>();
  const sizesMb: Record<number, number> = {};
  const runDir = path.join(BENCH_HOME, `run-${process.pid}`);
  try {
    for (const files of SIZES) {
      const tree = await generateTree({ files, seed: SEED, sizeScale: SIZE_SCALE }, log);
      sizesMb[files] = Math.round(tree.manifest.totalBytes / 1e6);
      const rec = new Recorder(files);
      const dir = path.join(runDir, String(files));
      await mkdir(dir, { recursive: true });
      const copyOf = (name: string): string => {
        const dest = path.join(dir, name, 'tree');
        run('mkdir', ['-p', path.dirname(dest)]);
        run('cp', ['-a', tree.root, dest]);
        return dest;
      };
      const store = (name: string): string => path.join(dir, name, 'store');
      const makers: Record<MethodName, () => BenchMethod> = {
        'raw-git': () => new RawGitMethod(copyOf('raw-git'), store('raw-git')),
        legacy: () => new LegacyMethod(copyOf('legacy'), store('legacy')),
        retrace: () => new RetraceMethod!('retrace', copyOf('retrace'), store('retrace'), probeScript),
        'retrace-warm': () =>
          new RetraceMethod!('retrace-warm', copyOf('retrace-warm'), store('retrace-warm'), probeScript),
        copy: () => new CopyMethod(copyOf('copy'), store('copy')),
      };
      const methods = ALL_METHODS.filter((x) => METHODS.includes(x)).map((name) => makers[name]());
      const phases = methods.map((m) => benchPhases(m, tree, rec));
      for (let i = 0; i < phases[0]!.length; i++) {
        log(`${files} files: phase ${i + 1} of ${phases[0]!.length}`);
        for (const list of phases) {
          await settleDisk(dir); // the last method's unsynced writes are not this one's to flush
          await list[i]!();
        }
      }
      for (const m of methods) {
        if (m.name === 'retrace') {
          const r = m as RetraceMethod;
          await settleDisk(dir); // the copy method's last restore left the whole tree's copy unsynced
          if (wanted('hook')) await benchHook(r, tree, rec, mode);
          if (mode === 'hook' && (wanted('hook') || wanted('hook-http') || wanted('hook-command'))) {
            for (const h of await benchHookModes({ repo: REPO, root: r.root, dataHome: r.dataHome, tree, log })) {
              rec.add(r.name, h.mode, h.times, 0, h.cpus);
              rec.rows.at(-1)!.p95Ms = h.p95Ms;
              log(`  ${h.mode} p95 ${h.p95Ms} ms (load ${loadAverage()})`);
            }
          }
          if (wanted('timeline-page')) await benchTimeline(r, rec);
          if (!OPS_ONLY) {
            results.storage.push(await benchStorage(r, tree));
            const s = results.storage.at(-1)!;
            log(
              `  storage: ${(s.storeBytes / 2 ** 20).toFixed(1)} MB after ${s.checkpoints} checkpoints; one packed copy ${(s.packedCopyBytes / 2 ** 20).toFixed(1)} MB`,
            );
          }
        }
        await m.dispose();
        // Retried: maintenance scheduled after the last checkpoint (a try-lock pack, off the call's path) may still
        // be writing into the store while it is removed (ENOTEMPTY).
        if (!flag('--keep'))
          await rm(path.dirname(m.root), { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
      }
      results.runs.push(...rec.rows);
      rec.rows.forEach((row, i) => cpuByRow.set(row, rec.cpu[i]!));
      // Beside the restore rows: what its writes alone cost here (a copy of the tree each: not at 100k files).
      if (wanted('restore') && files <= 10_000) {
        const floor = await measureFloor({ files, seed: SEED, sizeScale: SIZE_SCALE }, QUICK ? 5 : 15);
        (results.floor ??= []).push(floor);
        log(`  restore writes alone: ${RUNGS.map((g) => `${g} ${floor.ms[g].toFixed(1)} ms`).join(', ')}`);
      }
    }
    if (wantsRetrace && wanted('live-follow')) {
      results.follow = await benchLiveFollow();
      log(
        `live follow: one new message → list + tail page: median ${results.follow.medianMs} ms, p95 ${results.follow.p95Ms} ms`,
      );
    }
  } finally {
    if (!flag('--keep')) await rm(runDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }

  const importSizes = option('--imports') ?? '1,10,100';
  const importRows: ImportRow[] =
    importSizes !== 'none' && (!OPS_ONLY || OPS_ONLY.includes('import' as Operation))
      ? benchImports(REPO, importSizes.split(',').map(Number), log)
      : [];
  if (importRows.length > 0) (results as BenchResults & { imports?: ImportRow[] }).imports = importRows;

  results.machine.loadAverage.end = os.loadavg().map((x) => Math.round(x * 100) / 100);
  results.targets = judgeTargets(results);
  await mkdir(path.dirname(OUT), { recursive: true });
  await writeFile(OUT, JSON.stringify(results, null, 2) + '\n');
  log(`wrote ${path.relative(REPO, OUT)}`);
  if (!flag('--no-docs')) {
    const notes: ReportNotes = {
      command: `npm run bench${QUICK ? ' -- --quick' : ''}`,
      startedAt: startedAt.toISOString().replace(/\.\d+Z$/, 'Z'),
      durationS: (Date.now() - startedAt.getTime()) / 1000,
      runsNote: [
        QUICK
          ? '--quick: 3 timed runs per operation after one warm-up (first checkpoint: 2, copy: 1); file sizes ×0.25.'
          : '31 timed runs per operation after one warm-up at 1k files, 11 at 10k, 5 at 100k; there first-checkpoint uses 2 (each costs tens of seconds; the warm-up makes a third); the copy method uses 3, and at 100k files 1 run with no separate warm-up (that run is also its RSS probe).',
        'Warm-up: the RSS probe (for Retrace in a process of its own, bench/probe.ts), then one more untimed call in the measuring process wherever 3 or more runs are timed, for every method alike (since 2026-12-06 19:30: before, Retrace’s first timed call of each operation was the first in its process).',
        'Restore and undo alternate (restore 10 checkpoints back, then undo it).',
        'Before each method’s phase and before the hook rows, one untimed syncfs of the run’s file system (bench/settleDisk.ts, since 2026-12-06 23:30): no method pays for flushing what the one before it left unsynced (the copy method’s 100k restore leaves half a gigabyte).',
      ],
      sizesMb,
      hookMode:
        mode === 'hook'
          ? '`node bin/retrace.js hook claude-code` with a PostToolUse (Edit) payload on stdin, one edited file per call, wall time of the whole process.' +
            ' As users get it: the untimed warm-up call runs in-process and starts the resident hook server, the timed calls go through it (its CPU column counts the calling process only; the server is not its child), and the server is stopped after the hook phase.' +
            ` The same call in-process (RETRACE_HOOK_SERVER=0), median: ${
              [...hookInProcess]
                .map(
                  ([files, h]) =>
                    `${files.toLocaleString('en-US')} files ${Math.round(h.medianMs)} ms (server answered ${h.viaServer} timed calls)`,
                )
                .join(', ') || 'not measured'
            }.`
          : '`node bin/retrace.js checkpoint` per call (the Claude Code hook command was not available), one edited file per call, wall time of the whole process.',
      extra: [
        `Timeline page: the service's \`timeline\` handler (offset 0, limit 500: the app's first page) over a ${TIMELINE_MESSAGES.toLocaleString('en-US')}-message session.`,
        'Diff summary and file contents: a different step per run (the service caches summaries per commit pair; the first request is the cost the app sees).',
        `Storage: a fresh store, one first checkpoint, then ${STORAGE_CHECKPOINTS} checkpoints of 10 edited files each, measured by \`retrace status\`'s storageBytes after one maintenance run (the upkeep checkpoints schedule, which back-to-back checkpoints keep from the lock); "one packed copy" = \`git pack-objects\` of exactly the objects of the first snapshot.`,
      ],
    };
    const previous = existsSync(DOCS) ? readFileSync(DOCS, 'utf8') : '';
    const marker = '<!-- analysis: kept by the runner -->';
    const analysis = previous.includes(marker) ? previous.slice(previous.indexOf(marker)) : `${marker}\n`;
    await mkdir(path.dirname(DOCS), { recursive: true });
    await writeFile(DOCS, `${renderMarkdown(results, notes, cpuByRow)}\n${importMarkdown(importRows)}\n${analysis}`);
    log(`wrote ${path.relative(REPO, DOCS)}`);
  }
}

await main();

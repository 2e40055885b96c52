/**
 * Import rows of `npm run bench` (issue 15 item 4): a Claude Code transcript of 1, 10 and 100 MB imported by the
 * built CLI (`retrace import claude-code FILE --cwd EMPTY --json`) in its own process under GNU time: wall and CPU
 * seconds, peak RSS. Targets: peak RSS ≤ 2× the transcript's size, and a 100 MB transcript in ≤ 15 s.
 *
 * The transcript is real fixture 04 chained with itself (claudeChain.ts) when ../shared/fixtures is there, else
 * the seeded synthetic one (claudeSynthetic.ts); each row says which.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHAIN_SOURCE, chainTranscript } from './claudeChain';
import { writeSyntheticTranscript } from './claudeSynthetic';
import { TIME_BIN } from './proc';

export const IMPORT_TARGETS = { rssPerByte: 2, secondsAt100Mb: 15 };

export interface ImportRow {
  /** The size asked for, and the transcript's real size. */
  mb: number;
  bytes: number;
  transcript: 'fixture 04 chained' | 'synthetic';
  messages: number;
  checkpoints: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  /** Peak RSS over the transcript's size. */
  rssRatio: number;
  /** A bare `node` process's peak RSS (what no import can go below). */
  bareNodeMb: number;
  /** 1-minute load average before the run. */
  load: number;
  /** Against the targets; null where a target does not apply (the time target is for 100 MB). */
  memoryMet: boolean;
  timeMet: boolean | null;
}

function timed(cmd: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(TIME_BIN, ['-f', 'TIME %M %e %U %S', ...cmd], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
  const m = /TIME (\d+) ([\d.]+) ([\d.]+) ([\d.]+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${cmd.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return { rssMb: Number(m[1]) / 1024, s: Number(m[2]), cpu: Number(m[3]) + Number(m[4]), stdout: r.stdout };
}

/** One row per size, through the CLI bundle (built here, as `npm run build:cli` would). */
export function benchImports(repo: string, sizesMb: number[], log: (line: string) => void): ImportRow[] {
  execFileSync(process.execPath, [path.join(repo, 'scripts/build-cli.mjs')], { stdio: 'ignore' });
  const source = path.join(repo, CHAIN_SOURCE);
  const real = existsSync(source);
  const rows: ImportRow[] = [];
  const bare = timed([process.execPath, '-e', 'setTimeout(() => {}, 10)'], process.env).rssMb;
  for (const mb of sizesMb) {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'retrace-bench-import-'));
    try {
      const ws = path.join(tmp, 'ws');
      mkdirSync(ws);
      const file = path.join(tmp, 'transcript.jsonl');
      const target = mb * 2 ** 20;
      const bytes = real
        ? chainTranscript(source, file, target).bytes
        : writeSyntheticTranscript(file, { bytes: target, cwd: ws }).bytes;
      const load = os.loadavg()[0]!;
      const env = { ...process.env, RETRACE_HOME: path.join(tmp, 'home') };
      const cli = path.join(repo, 'bin/retrace.js');
      const r = timed([process.execPath, cli, 'import', 'claude-code', file, '--cwd', ws, '--json'], env);
      const res = JSON.parse(r.stdout) as { messages: number; checkpoints: number };
      const rssRatio = r.rssMb / (bytes / 2 ** 20);
      const row: ImportRow = {
        mb,
        bytes,
        transcript: real ? 'fixture 04 chained' : 'synthetic',
        messages: res.messages,
        checkpoints: res.checkpoints,
        seconds: r.s,
        cpuSeconds: Math.round(r.cpu * 100) / 100,
        peakRssMb: Math.round(r.rssMb),
        rssRatio: Math.round(rssRatio * 100) / 100,
        bareNodeMb: Math.round(bare),
        load: Math.round(load * 100) / 100,
        memoryMet: rssRatio <= IMPORT_TARGETS.rssPerByte,
        timeMet: mb === 100 ? r.s <= IMPORT_TARGETS.secondsAt100Mb : null,
      };
      log(
        `  import ${mb} MB (${row.transcript}): ${row.seconds} s, CPU ${row.cpuSeconds} s, peak RSS ${row.peakRssMb} MB = ${row.rssRatio}× (load ${row.load})`,
      );
      rows.push(row);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return rows;
}

/** The import table of docs/benchmarks.md. */
export function importMarkdown(rows: ImportRow[]): string {
  if (rows.length === 0) return '';
  const out = [
    '## Imports (Claude Code transcript)',
    '',
    `\`retrace import claude-code\` of one transcript in its own process (GNU time). Targets: peak RSS ≤ ${IMPORT_TARGETS.rssPerByte}× the transcript, 100 MB in ≤ ${IMPORT_TARGETS.secondsAt100Mb} s. ` +
      `Transcript: ${rows[0]!.transcript === 'synthetic' ? 'the seeded synthetic one (bench/claudeSynthetic.ts; ../shared/fixtures absent)' : 'real fixture 04 chained with itself (bench/claudeChain.ts)'}. ` +
      `A bare Node process peaks at ${rows[0]!.bareNodeMb} MB, so small transcripts cannot meet the ratio.`,
    '',
    '| size | messages | checkpoints | wall s | CPU s | peak RSS MB | × size | load | memory | time |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows)
    out.push(
      `| ${(r.bytes / 2 ** 20).toFixed(1)} MB | ${r.messages} | ${r.checkpoints} | ${r.seconds} | ${r.cpuSeconds} | ${r.peakRssMb} | ${r.rssRatio} | ${r.load} | ${r.memoryMet ? 'met' : 'missed'} | ${r.timeMet === null ? '—' : r.timeMet ? 'met' : 'missed'} |`,
    );
  return out.join('\n') + '\n';
}

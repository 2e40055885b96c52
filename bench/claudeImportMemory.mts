/**
 * Import memory and time of a large Claude Code transcript (issue 11): a real transcript chained with itself
 * (fresh uuids, tool ids and times for each copy, each copy continuing from the previous one's last line) up
 * to the size asked, imported by the built CLI in its own process under GNU time for its peak RSS.
 *
 *   npx tsx bench/claudeImportMemory.mts [SOURCE.jsonl] [--mb 100] [--read-only] [--out KEPT.jsonl]
 *
 * --read-only measures the reading half alone (stream, graph, messages, rebuilt steps; claudeReadChild.ts):
 * what the streaming import changed. The whole import adds the shadow-repository writes (one commit per step).
 * Default source: ../shared/fixtures/claude-code/04-…/full.jsonl. Not part of `npm test` (minutes, 100 MB).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHAIN_SOURCE, chainTranscript } from './claudeChain';

const args = process.argv.slice(2);
const mbAt = args.indexOf('--mb');
const targetMb = mbAt >= 0 ? Number(args[mbAt + 1]) : 100;
const valueAt = new Set([mbAt + 1, args.indexOf('--out') + 1].filter((i) => i > 0));
const source = args.find((a, i) => !a.startsWith('--') && !valueAt.has(i)) ?? CHAIN_SOURCE;

function synthesise(out: string): { bytes: number; copies: number } {
  return chainTranscript(source, out, targetMb * 2 ** 20);
}

const readOnly = args.includes('--read-only');

/** Peak RSS (MB) and seconds of a command under GNU time, with its stdout. */
function timed(cmd: string[], env: NodeJS.ProcessEnv): { rssMb: number; s: string; stdout: string } {
  const run = spawnSync('/usr/bin/time', ['-f', 'TIME %M %e', ...cmd], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
  const m = /TIME (\d+) ([\d.]+)/.exec(run.stderr);
  if (run.status !== 0 || !m) throw new Error(`${cmd.join(' ')} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  return { rssMb: Number(m[1]) / 1024, s: m[2]!, stdout: run.stdout };
}

async function readHalf(file: string, fileMb: number): Promise<void> {
  const outfile = join(tmp, 'read.mjs');
  await build({
    entryPoints: ['bench/claudeReadChild.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    external: ['electron'],
    logLevel: 'warning',
  });
  const empty = join(tmp, 'empty.jsonl');
  writeFileSync(empty, '');
  const base = timed(['node', '-e', 'setTimeout(() => {}, 10)'], process.env);
  const r = timed(['node', outfile, file], process.env);
  process.stdout.write(
    `read half: ${r.s} s, peak RSS ${r.rssMb.toFixed(0)} MB = ${(r.rssMb / fileMb).toFixed(2)}× the file ` +
      `(bare node: ${base.rssMb.toFixed(0)} MB); ${r.stdout.trim()}\n`,
  );
}

const tmp = mkdtempSync(join(tmpdir(), 'retrace-cc-memory-'));
try {
  const outAt = args.indexOf('--out');
  const file = outAt >= 0 ? args[outAt + 1]! : join(tmp, 'big.jsonl');
  const { bytes, copies } = synthesise(file);
  if (readOnly) {
    process.stdout.write(`${copies} copies of ${source}: ${(bytes / 2 ** 20).toFixed(1)} MB\n`);
    await readHalf(file, bytes / 2 ** 20);
  } else {
    const ws = join(tmp, 'ws');
    mkdirSync(ws);
    execFileSync('node', ['scripts/build-cli.mjs'], { stdio: 'ignore' });
    const run = spawnSync(
      '/usr/bin/time',
      ['-f', 'TIME %M %e', 'node', 'bin/retrace.js', 'import', 'claude-code', file, '--cwd', ws, '--json'],
      { encoding: 'utf8', env: { ...process.env, RETRACE_HOME: join(tmp, 'data') }, maxBuffer: 1 << 26 },
    );
    const m = /TIME (\d+) ([\d.]+)/.exec(run.stderr);
    if (run.status !== 0 || !m) throw new Error(`import failed (${run.status}): ${run.stderr.slice(-2000)}`);
    const rssMb = Number(m[1]) / 1024;
    const fileMb = bytes / 2 ** 20;
    const res = JSON.parse(run.stdout) as { messages: number; hidden: number; checkpoints: number };
    process.stdout.write(
      `${copies} copies of ${source}: ${fileMb.toFixed(1)} MB (${statSync(file).size} bytes)\n` +
        `import: ${m[2]} s, peak RSS ${rssMb.toFixed(0)} MB = ${(rssMb / fileMb).toFixed(2)}× the file; ` +
        `${res.messages} messages, ${res.hidden} hidden, ${res.checkpoints} checkpoints\n`,
    );
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

/**
 * Where a cold incremental checkpoint's time goes (issue 15 item 2: ≤ 1.2× raw git at 1k and 10k), step by step:
 * the bench's edit (10 files appended) then a checkpoint with no hint, as `run.ts` times it, against raw git's
 * `add -A` + `commit` on a second copy, interleaved.
 *
 *   npx tsx bench/checkpointProfile.ts --files 1000 --runs 20
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { traceSteps } from '../src/main/engine/stepTrace';
import { applyEdits, generateTree } from './generate';
import { RetraceClient } from './methods/retraceClient';
import { arg } from './args';
import { median } from './stats';

const FILES = Number(arg('--files', '1000'));
const RUNS = Number(arg('--runs', '20'));

async function main(): Promise<void> {
  const tree = await generateTree({ files: FILES, seed: 42, sizeScale: 1 }, (l) => process.stderr.write(l + '\n'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'retrace-cprof-'));
  const ours = path.join(dir, 'ours');
  const theirs = path.join(dir, 'git');
  cpSync(tree.root, ours, { recursive: true, verbatimSymlinks: true });
  cpSync(tree.root, theirs, { recursive: true, verbatimSymlinks: true });
  const gitEnv = { ...process.env, GIT_DIR: path.join(dir, 'raw.git'), GIT_WORK_TREE: theirs };
  const git = (...a: string[]): void => void execFileSync('git', a, { env: gitEnv });
  git('init', '-q');
  git('config', 'user.email', 'b@b');
  git('config', 'user.name', 'b');
  const commitAll = (): void => {
    git('add', '-A');
    git('commit', '-q', '--allow-empty', '-m', 'c', '--no-verify');
  };
  commitAll();
  const client = await RetraceClient.open({ root: ours, dataHome: path.join(dir, 'home') });
  await client.checkpoint(null);
  const times: Record<string, number[]> = { retrace: [], 'raw-git': [] };
  const steps: Record<string, number[]> = {};
  for (let k = 0; k <= RUNS; k++) {
    await applyEdits(theirs, tree.manifest, k);
    let t0 = performance.now();
    commitAll();
    const rawMs = performance.now() - t0;
    await applyEdits(ours, tree.manifest, k);
    t0 = performance.now();
    const { steps: s } = await traceSteps(() => client.checkpoint(null));
    const ourMs = performance.now() - t0;
    if (k === 0) continue; // warm-up
    times['raw-git']!.push(rawMs);
    times.retrace!.push(ourMs);
    const sums = new Map<string, number>();
    for (const part of s.split(' ').filter(Boolean)) {
      const [name, v] = part.split('=');
      sums.set(name!, (sums.get(name!) ?? 0) + Number(v));
    }
    for (const [name, v] of sums) (steps[name] ??= []).push(v);
  }
  for (const [k, v] of Object.entries(times)) console.log(`${k.padEnd(8)} median ${median(v).toFixed(1)} ms`);
  console.log(`ratio ${(median(times.retrace!) / median(times['raw-git']!)).toFixed(2)}×`);
  console.log(
    `steps: ${Object.entries(steps)
      .map(([k, v]) => `${k}=${median(v).toFixed(1)}${v.length < RUNS ? `(${v.length}×)` : ''}`)
      .join(' ')}`,
  );
  await client.close();
}

await main();

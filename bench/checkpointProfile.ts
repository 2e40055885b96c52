/**
 * Where a cold incremental checkpoint's time goes (issue 15 item 2: ≤ 1.2× raw git at 1k and 10k), step by step:
 * the bench's edit (10 files appended) then a checkpoint with no hint, as `run.ts` times it, against raw git's
 * `add -A` + `commit` on a second copy, interleaved.
 *
 *   npx tsx bench/checkpointProfile.ts --files 1000 --runs 20
 */
import { traceSteps } from '../src/main/engine/stepTrace';
import { applyEdits } from './generate';
import { sideBySide } from './sideBySide';
import { arg } from './args';
import { median } from './stats';

const FILES = Number(arg('--files', '1000'));
const RUNS = Number(arg('--runs', '20'));

async function main(): Promise<void> {
  const { tree, ours, theirs, client, commitAll } = await sideBySide(FILES, 'retrace-cprof-');
  commitAll();
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

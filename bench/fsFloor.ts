/**
 * What the file system alone charges for the bench's restore (issue 15 item 2), rung by rung of the guarantees, so
 * that "the rest is the guarantees' floor" is a measurement and not a claim. The same files the bench's restore
 * writes (the paths ten rounds of `applyEdits` touched, their contents before and after), written back and forth
 * on a copy of the generated tree, with none of Retrace's code in the loop but its write of a new file
 * (atomicWrite.ts) and its syncs (syncFs.ts):
 *
 * - `replace`    — unlink, create, write: what git's checkout does to a changed file (no sync, nothing kept);
 * - `atomic`     — a new file beside it, renamed over it (I11: never half-written; no sync);
 * - `durable`    — `atomic` with one syncfs before the renames and one after (I11 and I8 across a crash);
 * - `kept`       — `durable` with the replaced file hard-linked aside until the end, then unlinked (I9's backup);
 * - `reused`     — what the attic does (shadow/attic.ts): the replaced file kept instead of unlinked, and the version
 *                  a write before kept there renamed back in place of a new file; one syncfs for the renames. A
 *                  restore and its undo then write and free no content.
 *
 * Retrace's restore adds to `kept` the safety checkpoint (a git scan), the plan and the I9 checks.
 *
 *   npx tsx bench/fsFloor.ts --files 1000 [--runs 15]
 */
import { cpSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeNewFile } from '../src/main/engine/shadow/atomicWrite';
import { syncWrittenDirs, syncWrittenFiles } from '../src/main/engine/syncFs';
import { applyEdits, generateTree, type TreeSpec } from './generate';
import { median, type FloorRow, type FloorRung } from './stats';
import { arg } from './args';

export const RUNGS: readonly FloorRung[] = ['replace', 'atomic', 'durable', 'kept', 'reused'];

/** A new file, written as a restore writes its side files (atomicWrite.ts), its sync left to the rung. */
const create = (abs: string, content: Buffer) => writeNewFile(abs, content, 0o644, false, { sync: false });

/** Put `contents` (path → bytes) in place under `root` the way `rung` says; returns the milliseconds it took. */
export async function writeRung(root: string, rung: FloorRung, contents: ReadonlyMap<string, Buffer>): Promise<number> {
  const t0 = performance.now();
  const abs = [...contents.keys()].map((rel) => path.join(root, rel));
  const bytes = [...contents.values()];
  if (rung === 'replace') {
    for (const [i, a] of abs.entries()) {
      unlinkSync(a);
      await create(a, bytes[i]!);
    }
    return performance.now() - t0;
  }
  if (rung === 'reused') {
    await reuseFromAttic(root, contents);
    return performance.now() - t0;
  }
  const side = abs.map((a) => path.join(path.dirname(a), `.${path.basename(a)}.~floor.new`));
  for (const [i, s] of side.entries()) await create(s, bytes[i]!);
  // The syncs a restore makes, the same way (syncFs.ts: one syncfs where trusted, else each file and folder).
  if (rung !== 'atomic') await syncWrittenFiles(side);
  abs.forEach((a, i) => {
    if (rung === 'kept') linkSync(a, `${a}.~floor.old`);
    renameSync(side[i]!, a);
  });
  if (rung === 'kept') for (const a of abs) unlinkSync(`${a}.~floor.old`);
  if (rung !== 'atomic') await syncWrittenDirs(new Set(abs.map((a) => path.dirname(a))));
  return performance.now() - t0;
}

/** The `reused` rung's state per tree: per path, the kept file and the content it holds, and what is in place. */
interface Attic {
  kept: Map<string, { file: string; content: Buffer }>;
  inPlace: Map<string, Buffer>;
}
const attics = new Map<string, Attic>();
let keptCount = 0;

async function reuseFromAttic(root: string, contents: ReadonlyMap<string, Buffer>): Promise<void> {
  const state = attics.get(root) ?? { kept: new Map(), inPlace: new Map() };
  attics.set(root, state);
  const atticDir = `${root}.attic`; // beside the tree, on its file system
  mkdirSync(atticDir, { recursive: true });
  // A version no kept file holds yet (the first round) is written as `kept` writes it.
  const fresh = [...contents].filter(([rel, c]) => !state.kept.get(rel)?.content.equals(c));
  const side = new Map(fresh.map(([rel]) => [rel, path.join(root, `${rel}.~floor.new`)]));
  for (const [rel, c] of fresh) await create(side.get(rel)!, c);
  await syncWrittenFiles([...side.values()]);
  for (const [rel, content] of contents) {
    const a = path.join(root, rel);
    const from = side.get(rel) ?? state.kept.get(rel)!.file;
    const keep = path.join(atticDir, String(keptCount++));
    const was = state.inPlace.get(rel) ?? readFileSync(a);
    linkSync(a, keep);
    renameSync(from, a);
    state.kept.set(rel, { file: keep, content: was });
    state.inPlace.set(rel, content);
  }
  await syncWrittenDirs(new Set([atticDir, ...[...contents.keys()].map((rel) => path.dirname(path.join(root, rel)))]));
}

/**
 * Each rung's median over `runs` round trips (one write to the target's contents and one back, each timed), rungs
 * interleaved so that a slow minute of the disk hits them alike. The tree is the bench's; the copy is removed.
 */
export async function measureFloor(spec: TreeSpec, runs: number): Promise<FloorRow> {
  const tree = await generateTree(spec);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'retrace-floor-'));
  try {
    const root = path.join(dir, 'tree');
    cpSync(tree.root, root, { recursive: true, verbatimSymlinks: true });
    // Every file an edit may touch, as it was: the restore's target contents.
    const original = new Map(tree.manifest.editable.map((rel) => [rel, readFileSync(path.join(root, rel))]));
    const touched = new Set<string>();
    for (let k = 0; k < 10; k++) for (const rel of await applyEdits(root, tree.manifest, k)) touched.add(rel);
    const before = new Map([...touched].map((rel) => [rel, original.get(rel)!]));
    const after = new Map([...touched].map((rel) => [rel, readFileSync(path.join(root, rel))]));
    const times: Record<FloorRung, number[]> = { replace: [], atomic: [], durable: [], kept: [], reused: [] };
    for (let i = 0; i <= runs; i++)
      for (const rung of RUNGS) {
        const back = await writeRung(root, rung, before);
        const forth = await writeRung(root, rung, after);
        if (i > 0) times[rung].push(back, forth); // the first round warms up
      }
    const bytes = [...after.values()].reduce((n, b) => n + b.length, 0);
    const ms = Object.fromEntries(RUNGS.map((r) => [r, median(times[r])])) as Record<FloorRung, number>;
    return { files: spec.files, paths: touched.size, bytes, ms };
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = Number(arg('--files', '1000'));
  const runs = Number(arg('--runs', '15'));
  const r = await measureFloor({ files, seed: 42, sizeScale: 1 }, runs);
  console.log(
    `files ${files}: ${r.paths} paths written each way (${(r.bytes / 1024).toFixed(0)} KiB), load ${os.loadavg()[0]!.toFixed(2)}`,
  );
  for (const rung of RUNGS) console.log(`${rung.padEnd(8)} ${r.ms[rung].toFixed(1)} ms`);
}

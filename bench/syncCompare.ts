/**
 * Per-file fsync against one syncfs for a restore-sized write (issue 15 item 2): 100 new files in 70 folders,
 * then the folders, interleaved so that load hits both alike.  npx tsx bench/syncCompare.ts [dir]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syncDirs, syncFileSystemsOf, syncFiles } from '../src/main/engine/syncFs';

const base = mkdtempSync(path.join(process.argv[2] ?? os.tmpdir(), 'retrace-sync-'));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const times: Record<string, number[]> = { perFile: [], syncfs: [] };
for (let round = 0; round < 12; round++) {
  for (const how of ['perFile', 'syncfs'] as const) {
    const dir = path.join(base, `${how}-${round}`);
    const dirs = Array.from({ length: 70 }, (_, i) => path.join(dir, `d${i}`));
    for (const d of dirs) mkdirSync(d, { recursive: true });
    const files = Array.from({ length: 100 }, (_, i) => path.join(dirs[i % 70]!, `f${i}`));
    const t0 = performance.now();
    for (const f of files) writeFileSync(f, `content ${f}\n`.repeat(20));
    if (how === 'perFile') {
      await syncFiles(files.slice(0, 64));
      await syncFiles(files.slice(64));
      await syncDirs(dirs);
      await syncDirs(dirs);
    } else {
      for (let k = 0; k < 3; k++) if (!(await syncFileSystemsOf([dir]))) throw new Error('no syncfs here');
    }
    if (round > 0) times[how]!.push(performance.now() - t0);
  }
}
console.log(
  `load ${os.loadavg()[0]!.toFixed(2)}: per-file ${median(times.perFile!).toFixed(1)} ms, syncfs ×3 ${median(times.syncfs!).toFixed(1)} ms`,
);
rmSync(base, { recursive: true, force: true });

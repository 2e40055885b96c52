/**
 * The I10 trial at scale (issue 10 item 2): 1,000 Claude Code hook calls at the bench's 10,000-file tree while
 * an in-process reader loop runs `status` and working-tree diffs as the app does (test/reliability/
 * hookReaderTrial.ts). Not part of `npm test` (minutes); its small twin is test/reliability/hookReaders.test.ts.
 *
 *   npx tsx bench/hook-readers.ts [--files 10000] [--calls 1000] [--scale 0.25]
 *
 * Prints the result as JSON and writes it to bench/results/hook-readers-<date>.json (docs/reliability.md).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runHookReaderTrial } from '../test/reliability/hookReaderTrial';
import { generateTree } from './generate';
import { arg } from './args';

const files = Number(arg('--files', '10000'));
const calls = Number(arg('--calls', '1000'));
const sizeScale = Number(arg('--scale', '0.25'));
const log = (line: string): void => console.error(`[hook-readers] ${line}`);

const tree = await generateTree({ files, seed: 42, sizeScale }, log);
const work = mkdtempSync(path.join(os.tmpdir(), 'retrace-hook-readers-'));
try {
  const root = path.join(work, 'tree');
  cpSync(tree.root, root, { recursive: true, verbatimSymlinks: true });
  const home = path.join(work, 'home');
  mkdirSync(home);
  log(`${tree.manifest.fileCount} files copied to ${root}; ${calls} hook calls`);
  const r = await runHookReaderTrial({
    root,
    home,
    editable: tree.manifest.editable.slice(0, 200),
    calls,
    session: '3c2b1a09-8f7e-4d6c-9b5a-493827160504',
    log,
  });
  const out = {
    date: new Date().toISOString(),
    files: tree.manifest.fileCount,
    sizeScale,
    cpus: os.cpus().length,
    ...r,
  };
  const dir = path.join(path.dirname(new URL(import.meta.url).pathname), 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `hook-readers-${out.date.slice(0, 10)}.json`), JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 2));
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * One Retrace operation in its own process, so GNU time can report the peak RSS of the Node process that runs
 * the engine together with the git children it spawns. The runner bundles this file (esbuild, like the CLI)
 * and runs `node out/bench/probe.js '<json>'`; it prints one JSON line with the operation's answer.
 */
import { existsSync } from 'node:fs';
import { setMaintenanceScheduler } from '../src/main/engine/maintenance';
import { RetraceClient } from './methods/retraceClient';
import { OP_MARK } from './processCount';

export interface ProbeRequest {
  root: string;
  dataHome: string;
  op: 'checkpoint' | 'diff-summary' | 'file-contents' | 'restore' | 'undo' | 'timeline-page';
  hintPaths?: string[] | null;
  from?: string;
  to?: string;
  path?: string;
  target?: string;
  session?: string;
}

async function main(): Promise<void> {
  const req = JSON.parse(process.argv[2] ?? '{}') as ProbeRequest;
  // The upkeep a checkpoint schedules now and then (1 in 50: maintenance.ts) is not the operation's own: left out of
  // its process count and peak RSS.
  setMaintenanceScheduler(() => {});
  const client = await RetraceClient.open({ root: req.root, dataHome: req.dataHome });
  let answer: unknown = null;
  existsSync(OP_MARK); // marks the start of the operation in a process count's trace (processCount.ts)
  switch (req.op) {
    case 'checkpoint':
      answer = await client.checkpoint(req.hintPaths ?? null);
      break;
    case 'diff-summary':
      answer = await client.diffSummary(req.from!, req.to!);
      break;
    case 'file-contents':
      await client.fileContents(req.from!, req.to!, req.path!);
      break;
    case 'restore':
      await client.restore(req.target!);
      break;
    case 'undo':
      await client.undo();
      break;
    case 'timeline-page':
      answer = await client.timelinePage(req.session!);
      break;
  }
  process.stdout.write(JSON.stringify({ answer }) + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`probe: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});

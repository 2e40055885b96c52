/**
 * Git processes per UI read and per warm checkpoint, counted with strace:
 *   strace -f -qq -e trace=execve -e signal=none -o /tmp/gp.log npx tsx bench/gitProcesses.ts
 *   awk '/execve\("\/usr\/bin\/true"/ { if (l) print l, n; match($0, /"true", "[^"]*"/);
 *        l = substr($0, RSTART + 9, RLENGTH - 10); n = 0; next } /execve\(".*\/git"/ && !/= -1/ { n++ }' /tmp/gp.log
 * Each request is preceded by a marker (an exec of `true <label>`); the count after a label is the git
 * processes that request started (the first request of each kind also starts the resident ones).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RetraceClient } from './methods/retraceClient';

const mark = (label: string): void => void spawnSync('true', [label]);

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'retrace-gp-'));
  for (let i = 0; i < 50; i++) writeFileSync(path.join(root, `f${i}.txt`), `file ${i}\n`);
  const client = await RetraceClient.open({ root, dataHome: mkdtempSync(path.join(tmpdir(), 'retrace-gp-home-')) });
  const ids: string[] = [await client.checkpoint(null)];
  for (let k = 0; k < 4; k++) {
    writeFileSync(path.join(root, `f${k}.txt`), `changed ${k}\n`);
    ids.push(await client.checkpoint([`f${k}.txt`]));
  }
  for (let k = 1; k < 4; k++) {
    mark(`diff-summary-${k}`);
    await client.diffSummary(ids[k - 1]!, ids[k]!);
    mark(`file-contents-${k}`);
    await client.fileContents(ids[k - 1]!, ids[k]!, `f${k - 1}.txt`);
    mark(`checkpoint-${k}`);
    writeFileSync(path.join(root, `f${k}.txt`), `again ${k}\n`);
    await client.checkpoint([`f${k}.txt`]);
    mark('end');
  }
  await client.close();
}

void main();

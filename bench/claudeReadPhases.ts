/**
 * Where the reading half of a Claude Code import holds its memory (issue 15 item 4): the transcript streamed
 * into the conversation, then every step rebuilt, as `retrace import` does before it writes anything, with
 * the process's memory sampled every 50 ms and reported per phase (peak RSS, heap used, external/array
 * buffers), and optionally a heap snapshot at the end of a phase.
 *
 *   npx esbuild --bundle --platform=node --format=esm bench/claudeReadPhases.ts --outfile=/tmp/phases.mjs \
 *     --banner:js="import { createRequire as r } from 'node:module'; const require = r(import.meta.url);"
 *   node /tmp/phases.mjs FILE.jsonl [--snapshot read|rebuilt]
 */
import { writeHeapSnapshot } from 'node:v8';
import { readConversation } from '../src/main/integrations/claude-code/conversation';
import { findAgentFiles } from '../src/main/integrations/claude-code/import';
import { collectNow } from '../src/main/integrations/claude-code/memory';
import { reconstructSteps } from '../src/main/integrations/claude-code/reconstruct';

const MB = 2 ** 20;
let phase = 'start';
const peaks = new Map<string, { rss: number; heap: number; ext: number }>();
function sample(): void {
  const m = process.memoryUsage();
  const p = peaks.get(phase) ?? { rss: 0, heap: 0, ext: 0 };
  p.rss = Math.max(p.rss, m.rss);
  p.heap = Math.max(p.heap, m.heapUsed);
  p.ext = Math.max(p.ext, m.external + m.arrayBuffers);
  peaks.set(phase, p);
}

function settled(label: string): void {
  collectNow();
  const m = process.memoryUsage();
  process.stdout.write(
    `${label}: after a full GC rss ${(m.rss / MB).toFixed(0)} MB, heap used ${(m.heapUsed / MB).toFixed(0)} MB, ` +
      `external ${(m.external / MB).toFixed(0)} MB (array buffers ${(m.arrayBuffers / MB).toFixed(0)} MB)\n`,
  );
}

async function main(): Promise<void> {
  const file = process.argv[2]!;
  const snapAt = process.argv.includes('--snapshot') ? process.argv[process.argv.indexOf('--snapshot') + 1] : null;
  const timer = setInterval(sample, 50);
  phase = 'read';
  const conv = await readConversation(file, findAgentFiles(file), { pack: !process.argv.includes('--unpacked') });
  sample();
  settled('read');
  if (snapAt === 'read') process.stdout.write(`snapshot ${writeHeapSnapshot()}\n`);
  phase = 'rebuild';
  const rec = reconstructSteps(conv);
  sample();
  settled('rebuilt');
  if (snapAt === 'rebuilt') process.stdout.write(`snapshot ${writeHeapSnapshot()}\n`);
  clearInterval(timer);
  for (const [name, p] of peaks)
    process.stdout.write(
      `peak during ${name}: rss ${(p.rss / MB).toFixed(0)} MB, heap used ${(p.heap / MB).toFixed(0)} MB, external ${(p.ext / MB).toFixed(0)} MB\n`,
    );
  process.stdout.write(`${conv.messages.length} messages, ${rec.checkpoints.length} checkpoints\n`);
}

void main();

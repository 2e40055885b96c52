/**
 * The reading half of a Claude Code import in its own process (bundled by claudeImportMemory.ts): stream the
 * transcript into the conversation and rebuild every step, as `retrace import` does before writing anything.
 */
import { readConversation } from '../src/main/integrations/claude-code/conversation';
import { findAgentFiles } from '../src/main/integrations/claude-code/import';
import { reconstructSteps } from '../src/main/integrations/claude-code/reconstruct';

async function main(): Promise<void> {
  const file = process.argv[2]!;
  const t0 = performance.now();
  const conv = await readConversation(file, findAgentFiles(file));
  const rec = reconstructSteps(conv);
  process.stdout.write(
    JSON.stringify({
      ms: Math.round(performance.now() - t0),
      messages: conv.messages.length,
      checkpoints: rec.checkpoints.length,
      edits: rec.edits.length,
    }) + '\n',
  );
}

void main();

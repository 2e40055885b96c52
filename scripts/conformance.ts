/**
 * `npm run conformance -- DIR...`: imports every Claude Code transcript (.jsonl) and Cline task folder found
 * under the given folders with Retrace's real importers, each into a throwaway data home, and prints per
 * file and in total what the raw file holds against what the import shows. Exit 1 when any file fails
 * (newest message not shown, an edit neither rebuilt nor reported, lines hidden without a rewind).
 */
import { checkClaudeTranscript, checkClineTask } from '../src/main/integrations/conformance/check';
import { findTranscripts } from '../src/main/integrations/conformance/find';
import { formatRows } from '../src/main/integrations/conformance/report';

async function main(): Promise<number> {
  const roots = process.argv.slice(2);
  if (roots.length === 0) {
    process.stderr.write('usage: npm run conformance -- DIR... (e.g. ~/.claude/projects)\n');
    return 2;
  }
  const found = findTranscripts(roots);
  if (found.length === 0) {
    process.stderr.write(`no Claude Code transcript or Cline task under ${roots.join(', ')}\n`);
    return 2;
  }
  const rows = [];
  for (const f of found)
    rows.push(f.agent === 'cline' ? await checkClineTask(f.path) : await checkClaudeTranscript(f.path));
  process.stdout.write(formatRows(rows) + '\n');
  return rows.some((r) => r.problems.length > 0) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`conformance: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(2);
  },
);

/** The real Claude Code transcripts kept in test/fixtures/claude-code (SOURCE.txt in each folder says where from). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../fixtures/claude-code/', import.meta.url));
export const F1 = '01-ccviewer-v1.0.98/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl';
export const F2 = '02-cclog-v2.0.55-file-history/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl';
export const F2_AGENT = '02-cclog-v2.0.55-file-history/agent-c8d9b115.jsonl';

export function fixture(rel: string): string {
  return readFileSync(FIXTURES + rel, 'utf8');
}

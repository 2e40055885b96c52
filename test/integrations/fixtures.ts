/**
 * The real Claude Code transcripts in ../shared/fixtures/claude-code (read-only; SOURCE.txt in each folder says
 * where from). They are never copied into the project: tests that use them skip, saying so, when absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/claude-code/', import.meta.url));
export const HAVE_FIXTURES = existsSync(FIXTURES);
export const NO_FIXTURES = 'skipped: ../shared/fixtures absent';
export const F1 = '01-ccviewer-v1.0.98/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl';
export const F2 = '02-cclog-v2.0.55-file-history/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl';
export const F2_AGENT = '02-cclog-v2.0.55-file-history/agent-c8d9b115.jsonl';

export function fixture(rel: string): string {
  return readFileSync(FIXTURES + rel, 'utf8');
}

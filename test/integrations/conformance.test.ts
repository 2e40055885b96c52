/**
 * The conformance tool on every real sample in ../shared/fixtures (read-only, never copied here): newest
 * message shown, no edit unaccounted, lines hidden only where a prompt was really sent again.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkClaudeTranscript, checkClineTask } from '../../src/main/integrations/conformance/check';
import { findTranscripts } from '../../src/main/integrations/conformance/find';

const SHARED = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const present = existsSync(`${SHARED}claude-code`);
const claude = present ? findTranscripts([`${SHARED}claude-code`]).filter((f) => f.agent === 'claude-code') : [];

describe.skipIf(!present)('conformance on ../shared/fixtures/claude-code', () => {
  it.each(claude.map((f) => [f.path.slice(SHARED.length), f.path]))(
    '%s',
    async (_name, path) => {
      const row = await checkClaudeTranscript(path);
      expect(row.problems).toEqual([]);
      if (row.error) {
        // Only a file without any main-thread line may be refused (dag_cycle.jsonl: one sidechain line).
        expect(row.typedInFile).toBe(0);
        return;
      }
      expect(row.newestShown).toBe(true);
      expect(row.edits.unaccounted).toBe(0);
      expect(row.hiddenOther).toBe(0);
      if (row.resentPoints === 0) expect(row.hiddenRewind).toBe(0);
      expect(row.typedShown).toBeGreaterThan(0);
    },
    60_000,
  );
});

const clineTasks = existsSync(`${SHARED}cline`)
  ? findTranscripts([`${SHARED}cline`]).filter((f) => f.agent === 'cline')
  : [];

describe.skipIf(clineTasks.length === 0)('conformance on ../shared/fixtures/cline', () => {
  it.each(clineTasks.map((f) => [f.path.slice(SHARED.length), f.path]))(
    '%s',
    async (_name, path) => {
      const row = await checkClineTask(path);
      expect(row.problems).toEqual([]);
      expect(row.newestShown).toBe(true);
      expect(row.hiddenOther).toBe(0);
      expect(row.typedShown).toBe(row.typedInFile);
      expect(row.edits.unaccounted).toBe(0);
      expect(row.edits.rebuilt + row.edits.missing).toBe(row.edits.inFile);
    },
    120_000,
  );
});

if (!present) it.skip('skipped: ../shared/fixtures absent', () => {});

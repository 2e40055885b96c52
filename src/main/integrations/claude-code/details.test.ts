/**
 * What a Claude Code import keeps for the Message region (issue 12): thinking, model, token usage, tool inputs,
 * outputs and patches, long texts cut with a note, on a synthetic transcript read both ways (as a string, and
 * streamed and slimmed as an import reads it), and on the real transcripts when ../shared/fixtures is there.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { detailsTranscript, LONG_OUTPUT_LENGTH } from '../../../../test/integrations/claudeDetailsTranscript';
import { FIXTURES, HAVE_FIXTURES, NO_FIXTURES } from '../../../../test/integrations/fixtures';
import { DETAIL_LIMIT } from '../details';
import { parseConversation, readConversation, type Conversation } from './conversation';

afterAll(cleanupTempDirs);

const CWD = '/work/project';
const itFixtures = it.skipIf(!HAVE_FIXTURES);
if (!HAVE_FIXTURES) it.skip(NO_FIXTURES, () => {});

async function bothWays(): Promise<[string, Conversation][]> {
  const text = detailsTranscript(CWD);
  const file = join(tempDir('retrace-details-'), 'session.jsonl');
  writeFileSync(file, text);
  return [
    ['parsed', parseConversation({ text })],
    ['streamed', await readConversation(file, [])],
  ];
}

describe('Claude Code message details', () => {
  it('a response keeps its thinking, model and final token usage; its answered calls show on their results', async () => {
    for (const [how, c] of await bothWays()) {
      const first = c.messages.find((m) => m.role === 'assistant')!;
      expect(first.text, how).toBe('Running the tests.\n\n[Bash npm test -- --reporter=dot]');
      expect(first.meta.thinking, how).toBe('The person wants the tests run first.');
      expect(first.meta.model, how).toBe('claude-test-1');
      // The response's last line has its final counts.
      expect(first.meta.usage, how).toEqual({ input: 12, output: 42, cacheRead: 6789, cacheWrite: 345 });
      expect(first.meta.toolCalls, how).toBeUndefined();
      expect(first.meta.costUsd, how).toBe(0.0123);
    }
  });

  it('a Bash result carries its command and what it printed, linked by tool_use_id', async () => {
    for (const [how, c] of await bothWays()) {
      const bash = c.messages.find((m) => m.role === 'tool' && m.meta.command?.startsWith('npm test'))!;
      expect(bash.meta.toolCalls, how).toEqual([
        {
          id: 'toolu_bash_1',
          name: 'Bash',
          input: 'npm test -- --reporter=dot',
          output: '3 passing\n1 failing: greeting says Helo',
        },
      ]);
    }
  });

  it("an Edit shows the tool's patch; a Write of a new file shows its text as added lines", async () => {
    for (const [how, c] of await bothWays()) {
      const edit = c.messages.find((m) => m.meta.tool === 'Edit')!;
      const call = edit.meta.toolCalls![0]!;
      expect(call.patch, how).toBe(
        "@@ -1,1 +1,1 @@\n-export const greeting = 'Helo';\n+export const greeting = 'Hello';",
      );
      expect(call.input, how).toBeUndefined(); // the message names the file; the patch shows the change
      expect(edit.meta.file, how).toBe('greet.js');
      expect(call.output, how).toBe('The file greet.js has been updated.');
      const write = c.messages.find((m) => m.meta.tool === 'Write')!;
      expect(write.meta.toolCalls![0]!.patch, how).toBe('+# Notes\n+Greeting fixed.');
    }
  });

  it('an output longer than the limit is cut and says how much was left out', async () => {
    for (const [how, c] of await bothWays()) {
      const big = c.messages.find((m) => m.meta.command === 'cat big.log')!;
      const output = big.meta.toolCalls![0]!.output!;
      expect(output.startsWith('x'.repeat(DETAIL_LIMIT)), how).toBe(true);
      expect(output.slice(DETAIL_LIMIT), how).toBe(
        `\n… (cut: ${LONG_OUTPUT_LENGTH - DETAIL_LIMIT} more characters not kept)`,
      );
      // The timeline's text stays a short excerpt.
      expect(big.text.length, how).toBeLessThan(1100);
    }
  });

  it('a call that never got a result keeps its input on the response that made it', async () => {
    for (const [how, c] of await bothWays()) {
      const last = c.messages.filter((m) => m.role === 'assistant').at(-1)!;
      expect(last.meta.toolCalls, how).toEqual([{ id: 'toolu_bash_3', name: 'Bash', input: 'npm run lint' }]);
    }
  });

  itFixtures(
    'real transcripts: responses name their model and tokens, tool results their call and output',
    async () => {
      const file = join(FIXTURES, '04-asymbridge-v2.1.50-progress-compaction/full.jsonl');
      const c = await readConversation(file, []);
      const replies = c.messages.filter((m) => m.role === 'assistant');
      expect(replies.length).toBeGreaterThan(0);
      expect(replies.every((m) => typeof m.meta.model === 'string' && m.meta.usage?.output !== undefined)).toBe(true);
      expect(replies.filter((m) => m.meta.thinking).length).toBeGreaterThan(0);
      const tools = c.messages.filter((m) => m.role === 'tool');
      expect(tools.every((m) => m.meta.toolCalls?.length === 1 && m.meta.toolCalls[0]!.id)).toBe(true);
      const bash = tools.filter((m) => m.meta.tool === 'Bash');
      expect(bash.length).toBeGreaterThan(0);
      for (const m of bash) expect(m.meta.toolCalls![0]!.input).toBeTruthy();
      expect(bash.some((m) => (m.meta.toolCalls![0]!.output ?? '').length > 0)).toBe(true);
      const edits = tools.filter((m) => m.meta.tool === 'Edit' && !m.text.includes('(error)'));
      expect(edits.every((m) => /^[-+@ ]/m.test(m.meta.toolCalls![0]!.patch ?? ''))).toBe(true);
      for (const m of c.messages)
        for (const t of m.meta.toolCalls ?? [])
          for (const s of [t.input, t.output, t.patch]) expect((s ?? '').length).toBeLessThan(DETAIL_LIMIT + 100);
    },
  );
});

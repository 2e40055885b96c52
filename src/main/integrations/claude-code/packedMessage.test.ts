/**
 * Messages kept packed between an import's reading and its write (packedMessage.ts): the same messages as the
 * reader gives unpacked, on every real transcript, and packed in memory of their own size — not a view of
 * zlib's output chunk nor a slice of Node's shared pool, which kept many times the packed bytes alive.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { F1, F2, FIXTURES, HAVE_FIXTURES, NO_FIXTURES } from '../../../../test/integrations/fixtures';
import { readConversation, type ConversationMessage } from './conversation';
import { findAgentFiles } from './import';
import { collectNow } from './memory';
import { isPacked, packMessage } from './packedMessage';

const plain = (m: ConversationMessage) => ({
  role: m.role,
  kind: m.kind,
  text: m.text,
  ts: m.ts,
  hidden: m.hidden,
  uuids: m.uuids,
  toolUseId: m.toolUseId,
  meta: m.meta,
});

const F3 = '03-cclog-v2.1.114-parallel-subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl';
const F4 = '04-asymbridge-v2.1.50-progress-compaction/full.jsonl';

describe('packed messages', () => {
  it.skipIf(!HAVE_FIXTURES)('real transcripts: read packed, every message is the one read unpacked', async () => {
    for (const rel of [F1, F2, F3, F4]) {
      const file = join(FIXTURES, rel);
      const unpacked = await readConversation(file, findAgentFiles(file));
      const packed = await readConversation(file, findAgentFiles(file), { pack: true });
      expect(packed.messages.every(isPacked), rel).toBe(true);
      expect(packed.messages.map(plain), rel).toEqual(unpacked.messages.map(plain));
      expect(unpacked.messages.some(isPacked)).toBe(false);
    }
  });
  if (!HAVE_FIXTURES) it.skip(NO_FIXTURES, () => {});

  it('keep about their compressed size outside the heap, and decode to what was packed', () => {
    const output = 'line of a tool output that repeats → with a character beyond Latin-1\n'.repeat(150);
    const make = (i: number): ConversationMessage => ({
      role: 'tool',
      kind: 'tool',
      text: `Read file${i}.ts`,
      ts: '2026-01-01T00:00:00.000Z',
      hidden: false,
      uuids: [`u${i}`],
      toolUseId: `toolu_${i}`,
      meta: { tool: 'Read', toolCalls: [{ id: `toolu_${i}`, name: 'Read', input: '{}', output }] },
    });
    collectNow();
    const before = process.memoryUsage().arrayBuffers;
    const kept = Array.from({ length: 2000 }, (_, i) => packMessage(make(i)));
    collectNow();
    const grown = process.memoryUsage().arrayBuffers - before;
    // 2,000 × ~10 KB of text: packed, well under 1 MB (a 16 KiB zlib chunk each would be 32 MB).
    expect(grown).toBeLessThan(1 << 20);
    expect(plain(kept[1234]!)).toEqual(plain(make(1234)));
    const meta = kept[7]!.meta;
    meta.tool = 'changed';
    expect(kept[7]!.meta.tool).toBe('Read');
  });
});

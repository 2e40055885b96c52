/**
 * Whole file texts a slimmed transcript line holds (a Write's content, an Edit report's originalFile) are kept
 * deflated until the step reconstruction reads them (packedText.ts): the same text back, a fraction of it kept.
 */
import { describe, expect, it } from 'vitest';
import { collectNow } from './memory';
import { isText, PackedText, textOf } from './packedText';
import { slimLine } from './slim';

describe('packed texts', () => {
  it("a Write's content and a report's originalFile come back whole, kept in a fraction of their size", async () => {
    const file = Array.from({ length: 3000 }, (_, i) => `export const line${i} = '→ ${i % 17}';\n`).join('');
    const slim = slimLine({
      type: 'assistant',
      uuid: 'a1',
      message: {
        id: 'm1',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'Write', input: { file_path: '/w/a.ts', content: file } }],
      },
      toolUseResult: { type: 'update', filePath: '/w/a.ts', originalFile: file, structuredPatch: [] },
    });
    const content = (slim.message as { content: { input: { content: unknown } }[] }).content[0]!.input.content;
    const original = (slim.toolUseResult as { originalFile: unknown }).originalFile;
    for (const kept of [content, original]) {
      expect(kept).toBeInstanceOf(PackedText);
      expect(isText(kept)).toBe(true);
      expect(textOf(kept)).toBe(file);
    }
    // Short texts stay strings.
    expect(textOf('short')).toBe('short');

    collectNow();
    const before = process.memoryUsage().arrayBuffers;
    const kept = Array.from({ length: 200 }, () => new PackedText(file));
    // Buffers freed by a collection are released after it, by V8's sweeper: let it run.
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 20));
      collectNow();
    }
    // 200 × 93,000 characters (two-byte as a string, 18 MB of heap): packed, 11 KB each.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(4 << 20);
    expect(kept[199]!.toString()).toBe(file);
  });
});

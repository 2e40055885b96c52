/**
 * A real Claude Code transcript chained with itself up to a size (issue 11, 15): fresh uuids, tool ids and times
 * for each copy, each copy continuing from the previous one's last line, so the result is one long conversation.
 * Stops at the first line that reaches the size (a 1 MB transcript is the head of one copy).
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';

/** The transcript every import measurement chains when ../shared/fixtures is there (relative to the repo). */
export const CHAIN_SOURCE = '../shared/fixtures/claude-code/04-asymbridge-v2.1.50-progress-compaction/full.jsonl';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const IDS = /\b(toolu|msg|req)_[A-Za-z0-9]+/g;
const fresh = (id: string, copy: number) => {
  const h = createHash('sha256').update(`${copy}:${id}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export function chainTranscript(source: string, out: string, targetBytes: number): { bytes: number; copies: number } {
  const lines = readFileSync(source, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const sessionId = /"sessionId":"([^"]+)"/.exec(lines.join('\n'))?.[1] ?? '';
  const fd = openSync(out, 'w');
  let bytes = 0;
  let copies = 0;
  let lastTalk: string | null = null;
  try {
    while (bytes < targetBytes) {
      const shift = copies * 86_400_000; // one day later per copy, so times keep growing
      let newestTalk: string | null = null;
      for (const raw of lines) {
        if (bytes >= targetBytes) break;
        let text = raw
          .replace(UUID, (u) => (u === sessionId ? u : fresh(u, copies)))
          .replace(IDS, (id, kind: string) => `${kind}_${fresh(id, copies).replace(/-/g, '')}`)
          .replace(/"timestamp":"([^"]+)"/, (_m, ts: string) => {
            const t = Date.parse(ts);
            return `"timestamp":"${Number.isNaN(t) ? ts : new Date(t + shift).toISOString()}"`;
          });
        if (copies > 0 && text.includes('"parentUuid":null') && !text.includes('compact_boundary') && lastTalk) {
          // The copy's first line continues the previous copy: one long conversation, not a new start.
          text = text.replace('"parentUuid":null', `"parentUuid":"${lastTalk}"`);
          lastTalk = null;
        }
        const d = JSON.parse(text) as { type?: string; uuid?: string; isSidechain?: boolean };
        if ((d.type === 'user' || d.type === 'assistant') && d.uuid && !d.isSidechain) newestTalk = d.uuid;
        bytes += writeSync(fd, text + '\n');
      }
      lastTalk = newestTalk;
      copies++;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, copies };
}

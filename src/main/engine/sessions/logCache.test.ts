/**
 * The kept, incrementally read state of a session log always equals a fresh full read (issue 15: a faster path
 * that disagrees with a full scan is a bug). Real files in a temp folder, appended in random batches.
 */
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { prng, testSeed, type Prng } from '../../../../test/helpers/prng';
import type { SessionEvent } from './events';
import { readJsonl } from './jsonl';
import { replay, summarize, type SessionState } from './replay';
import { SessionStore } from './store';

afterAll(cleanupTempDirs);

/** What a full read of the log says, with no cache involved. */
async function fullRead(store: SessionStore, id: string): Promise<SessionState> {
  const { records, skipped } = await readJsonl<SessionEvent>(store.file(id));
  return replay(id, records, skipped);
}

/** Random events: messages (some checkpoints, some born hidden), rewinds, unrewinds, titles, damage. */
function randomEvents(r: Prng, ids: string[], n: number, clock: { t: number }): string[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const ts = new Date(Date.UTC(2025, 0, 1) + clock.t++ * 1000).toISOString();
    const k = r.next();
    if (k < 0.6 || ids.length === 0) {
      const id = r.next() < 0.03 && ids.length > 0 ? r.pick(ids) : `m_${ids.length}_${r.int(0, 1e6)}`;
      if (!ids.includes(id)) ids.push(id);
      lines.push(
        JSON.stringify({
          type: 'message',
          id,
          ts,
          role: r.pick(['user', 'assistant', 'system']),
          text: r.next() < 0.1 ? '' : `text ${id} ünïcödé ✓ ${'x'.repeat(r.int(0, 300))}\nsecond line`,
          ...(r.next() < 0.3 ? { hash: r.int(0, 1e9).toString(16).padStart(40, '0') } : {}),
          ...(r.next() < 0.05 ? { hidden: true } : {}),
        }),
      );
    } else if (k < 0.75) {
      const hide = Array.from({ length: r.int(1, 4) }, () => r.pick(ids));
      lines.push(JSON.stringify({ type: 'rewind', ts, rid: `r_${i}`, to: r.pick(ids), hide }));
    } else if (k < 0.9) {
      const show = Array.from({ length: r.int(1, 4) }, () => r.pick(ids));
      lines.push(JSON.stringify({ type: 'unrewind', ts, rid: `r_${i}`, show }));
    } else if (k < 0.95) {
      lines.push(JSON.stringify({ type: 'title', ts, title: r.next() < 0.3 ? '' : `title ${i}` }));
    } else {
      lines.push('{"type":"message","id":"dam'); // a damaged line, terminated
    }
  }
  return lines;
}

describe('session logs read incrementally', () => {
  it('equal a fresh full read after every random batch, torn tails included', async () => {
    const seed = testSeed(15_06);
    const r = prng(seed);
    for (let trial = 0; trial < 6; trial++) {
      const store = new SessionStore(tempDir());
      const id = `s-trial-${trial}`;
      // Half the trials start with a torn header (killed while creating): the header is rebuilt.
      if (trial % 2 === 0) store.create(id, { title: trial % 4 === 0 ? 'named' : '' });
      else {
        mkdirSync(store.dir, { recursive: true });
        writeFileSync(store.file(id), '{"type":"session","v":1,"id":"');
      }
      const ids: string[] = [];
      const clock = { t: 0 };
      for (let batch = 0; batch < 40; batch++) {
        const lines = randomEvents(r, ids, r.int(0, 25), clock);
        let body = lines.map((l) => l + '\n').join('');
        const file = store.file(id);
        const text = readFileSync(file, 'utf8');
        // A torn line is terminated by the next append, as appendJsonl does.
        if (text.length > 0 && !text.endsWith('\n')) body = '\n' + body;
        // Sometimes a write in progress: the batch's last line without its newline (finished by the next batch).
        if (r.next() < 0.2 && body.length > 1) body = body.slice(0, -1 - r.int(0, 10));
        // A write seen in progress: the batch's bytes arrive in two pieces, read between (a cut may fall inside a
        // line, even inside a character).
        const bytes = Buffer.from(body, 'utf8');
        const cut = r.next() < 0.3 ? r.int(0, bytes.length) : bytes.length;
        for (const piece of [bytes.subarray(0, cut), bytes.subarray(cut)]) {
          if (piece.length === 0) continue;
          appendFileSync(file, piece);
          const [got, want] = [await store.read(id), await fullRead(store, id)];
          expect(got, `seed ${seed}, trial ${trial}, batch ${batch}`).toEqual(want);
          const summaries = await store.summaries();
          expect(summaries, `seed ${seed}, trial ${trial}, batch ${batch}`).toEqual([summarize(want)]);
        }
      }
    }
  });

  it('a copy handed out is not changed by later events, and changing it does not change the kept state', async () => {
    const store = new SessionStore(tempDir());
    store.create('s1');
    store.append('s1', [{ type: 'message', id: 'm_1', ts: '2025-01-01T00:00:01Z', role: 'user', text: 'one' }]);
    const before = await store.read('s1');
    before.messages[0]!.meta = { checkpointUnavailable: true };
    store.append('s1', [{ type: 'rewind', ts: '2025-01-01T00:00:02Z', rid: 'r_1', hide: ['m_1'] }]);
    expect(before.messages[0]!.hidden).toBe(false);
    const after = await store.read('s1');
    expect(after.messages[0]!.hidden).toBe(true);
    expect(after.messages[0]!.meta).toBeUndefined();
    expect(after).toEqual(await fullRead(store, 's1'));
  });

  it('a log rewritten in place with the same size is read again', async () => {
    const store = new SessionStore(tempDir());
    store.create('s1', { createdAt: '2025-01-01T00:00:00Z' });
    store.append('s1', [{ type: 'message', id: 'm_1', ts: '2025-01-01T00:00:01Z', role: 'user', text: 'aaaa' }]);
    expect((await store.read('s1')).messages[0]!.text).toBe('aaaa');
    const file = store.file('s1');
    // A whole second, so that putting it back below gives the very same modification time.
    const second = new Date('2025-06-01T00:00:00Z');
    utimesSync(file, second, second);
    expect((await store.read('s1')).messages[0]!.text).toBe('aaaa');
    const before = statSync(file, { bigint: true });
    writeFileSync(file, readFileSync(file, 'utf8').replace('aaaa', 'bbbb'));
    utimesSync(file, second, second);
    // Same inode, same size, same modification time: only the change time (and the content) differ.
    const after = statSync(file, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    expect((await store.read('s1')).messages[0]!.text).toBe('bbbb');
    expect(await store.read('s1')).toEqual(await fullRead(store, 's1'));
  });

  it('a log replaced by another file, shortened, or rewritten longer is read again in full', async () => {
    const dir = tempDir();
    const store = new SessionStore(dir);
    store.create('s1', { createdAt: '2025-01-01T00:00:00Z' });
    const msg = (id: string, text: string) => ({
      type: 'message' as const,
      id,
      ts: '2025-01-01T00:00:01Z',
      role: 'user' as const,
      text,
    });
    store.append('s1', [msg('m_1', 'one'), msg('m_2', 'two')]);
    await store.read('s1');
    const file = store.file('s1');
    const original = readFileSync(file, 'utf8');

    // Replaced (a new inode: a repair or a pull writes a temp file and renames it), longer than before.
    const tmp = join(dir, 'tmp.jsonl');
    writeFileSync(tmp, original.replace('"one"', '"uno"') + JSON.stringify(msg('m_3', 'three')) + '\n');
    renameSync(tmp, file);
    expect((await store.read('s1')).messages.map((m) => m.text)).toEqual(['uno', 'two', 'three']);

    // Shortened (a forget that rewrote the log).
    truncateSync(file, original.indexOf('"m_2"') - '{"type":"message","id":'.length);
    expect((await store.read('s1')).messages.map((m) => m.text)).toEqual(['uno']);

    // Rewritten in place (same inode), longer, with different content at the end of what was read.
    writeFileSync(file, original.replace('"two"', '"dos"') + JSON.stringify(msg('m_4', 'four')) + '\n');
    expect((await store.read('s1')).messages.map((m) => m.text)).toEqual(['one', 'dos', 'four']);
    expect(await store.read('s1')).toEqual(await fullRead(store, 's1'));

    // Removed: unknown, as before.
    store.remove('s1');
    await expect(store.read('s1')).rejects.toMatchObject({ code: 'E_UNKNOWN_SESSION' });
  });
});

import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { isValidSessionId, newMessageId } from './ids';
import { appendJsonl, readJsonl, readLastRecord } from './jsonl';
import { SessionStore } from './store';

afterAll(cleanupTempDirs);

describe('session logs', () => {
  it('replays messages and visibility events; nothing is deleted', async () => {
    const store = new SessionStore(tempDir());
    store.create('s1', { title: '', createdAt: '2025-01-01T00:00:00Z' });
    const ids = ['a', 'b', 'c'].map((t, i) => ({ id: newMessageId(), t, i }));
    for (const m of ids)
      store.append('s1', [{ type: 'message', id: m.id, ts: `2025-01-01T00:00:0${m.i}Z`, role: 'user', text: m.t }]);
    store.append('s1', [{ type: 'rewind', ts: '2025-01-01T00:00:05Z', rid: 'r_1', hide: [ids[1]!.id, ids[2]!.id] }]);
    let s = await store.read('s1');
    expect(s.messages.map((m) => m.hidden)).toEqual([false, true, true]);
    expect(s.header.title).toBe('a');
    expect(s.updatedAt).toBe('2025-01-01T00:00:05Z');
    store.append('s1', [{ type: 'unrewind', ts: '2025-01-01T00:00:06Z', rid: 'r_2', show: [ids[1]!.id] }]);
    s = await store.read('s1');
    expect(s.messages.map((m) => m.hidden)).toEqual([false, false, true]);
  });

  it('skips a torn last line and terminates it before the next append, never rewriting earlier lines', async () => {
    const dir = tempDir();
    const store = new SessionStore(dir);
    store.create('s1');
    store.append('s1', [{ type: 'message', id: 'm_1', ts: '2025-01-01T00:00:01Z', role: 'user', text: 'one' }]);
    const file = store.file('s1');
    const before = readFileSync(file, 'utf8');
    appendFileSync(file, '{"type":"message","id":"m_2","ts":"2025-01-01T00:00:02Z","ro');
    const torn = await store.read('s1');
    expect(torn.skipped).toBe(1);
    expect(torn.messages.map((m) => m.id)).toEqual(['m_1']);
    const r = store.append('s1', [
      { type: 'message', id: 'm_3', ts: '2025-01-01T00:00:03Z', role: 'user', text: 'three' },
    ]);
    expect(r.repairedTornLine).toBe(true);
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const s = await store.read('s1');
    expect(s.messages.map((m) => m.id)).toEqual(['m_1', 'm_3']);
    expect(s.skipped).toBe(1);
  });

  it("finds the most recent session from the logs' tails, and rebuilds a torn header", async () => {
    const dir = tempDir();
    const store = new SessionStore(dir);
    store.create('old', { createdAt: '2025-01-01T00:00:00Z' });
    store.create('new', { createdAt: '2025-01-02T00:00:00Z' });
    expect(store.mostRecent()).toBe('new');
    store.append('old', [
      { type: 'message', id: 'm_x', ts: '2025-01-03T00:00:00Z', role: 'tool', text: 'x'.repeat(10_000) },
    ]);
    expect(store.mostRecent()).toBe('old');
    writeFileSync(join(store.dir, 'torn.jsonl'), '{"type":"sess');
    const s = await store.read('torn');
    expect(s.header.id).toBe('torn');
    expect(s.messages).toEqual([]);
    await expect(store.read('missing')).rejects.toMatchObject({ code: 'E_UNKNOWN_SESSION' });
  });

  it('validates ids: message ids never look like hashes; session ids are safe file and ref names', () => {
    for (let i = 0; i < 50; i++) expect(newMessageId()).toMatch(/^m_[0-9a-z]+$/);
    expect(isValidSessionId('abc-1.2_3')).toBe(true);
    for (const bad of ['', '.x', 'a..b', 'x.lock', 'x.', 'a/b', 'a b', 'x'.repeat(129)])
      expect(isValidSessionId(bad)).toBe(false);
    expect(() => new SessionStore(tempDir()).file('../x')).toThrow(/session id/);
  });
});

describe('jsonl', () => {
  it('reads the last record by tail, growing the window for long lines', () => {
    const file = join(tempDir(), 'x.jsonl');
    appendJsonl(file, [{ n: 1 }, { n: 2, pad: 'y'.repeat(50_000) }]);
    expect(readLastRecord<{ n: number }>(file)?.n).toBe(2);
    appendFileSync(file, '{"n":');
    expect(readLastRecord<{ n: number }>(file)?.n).toBe(2);
    expect(readLastRecord(join(tempDir(), 'none.jsonl'))).toBeNull();
  });

  it('appends without rewriting the file (same inode, prefix kept)', async () => {
    const file = join(tempDir(), 'y.jsonl');
    appendJsonl(file, [{ a: 1 }]);
    const ino = statSync(file).ino;
    appendJsonl(file, [{ a: 2 }]);
    expect(statSync(file).ino).toBe(ino);
    expect((await readJsonl<{ a: number }>(file)).records.map((r) => r.a)).toEqual([1, 2]);
  });
});

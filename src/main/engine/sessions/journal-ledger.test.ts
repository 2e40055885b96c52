import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { Journal, RecoveryLog } from '../journal';
import { invertVisibility, Ledger } from '../ledger';

afterAll(cleanupTempDirs);

const target = { hash: 'a'.repeat(40), message: 'm_1', session: 's1' };

describe('journal', () => {
  it('writes atomically (no temp file left), reads back, clears', () => {
    const dir = tempDir();
    const j = new Journal(dir);
    expect(j.read()).toBeNull();
    j.write({
      kind: 'restore',
      rid: 'r_1',
      ts: 't',
      mode: 'code',
      safety: 'b'.repeat(40),
      paths: ['a.txt'],
      target,
      conversation: null,
    });
    expect(readdirSync(dir)).toEqual(['journal.json']);
    expect(j.read()).toMatchObject({ kind: 'restore', rid: 'r_1', paths: ['a.txt'] });
    j.clear();
    expect(existsSync(j.file)).toBe(false);
    j.clear(); // idempotent
  });

  it('drops a journal that does not parse (it cannot have been renamed into place whole)', () => {
    const j = new Journal(tempDir());
    writeFileSync(j.file, '{"kind":"rest');
    expect(j.read()).toBeNull();
  });
});

describe('ledger', () => {
  it('undo targets the newest restore entry, including undo entries; rollbacks are not undoable', async () => {
    const l = new Ledger(tempDir());
    expect(await l.newestRestore()).toBeNull();
    expect(await l.lastRestore()).toBeNull();
    const base = { ts: 't', mode: 'code' as const, target, safety: null, paths: [], changed: [], conversation: null };
    l.append({ type: 'restore', rid: 'r_1', ...base });
    l.append({ type: 'rollback', rid: 'r_2', ts: 't', detail: 'x' });
    expect((await l.newestRestore())?.rid).toBe('r_1');
    l.append({ type: 'restore', rid: 'r_3', undoOf: 'r_1', ...base });
    expect(await l.lastRestore()).toMatchObject({ restore: 'r_3', undoOf: 'r_1' });
    expect(await l.has('r_2')).toBe(false);
    expect(invertVisibility({ session: 's', hide: ['a'], show: ['b'] })).toEqual({
      session: 's',
      hide: ['b'],
      show: ['a'],
    });
  });

  it('keeps recovery reports in order', async () => {
    const r = new RecoveryLog(tempDir());
    r.add([{ ts: '1', kind: 'log-repaired', detail: 'a' }]);
    r.add([{ ts: '2', kind: 'restore-rolled-back', detail: 'b' }]);
    expect((await r.recent()).map((x) => x.detail)).toEqual(['a', 'b']);
  });
});

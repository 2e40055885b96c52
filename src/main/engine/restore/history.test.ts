import { describe, expect, it } from 'vitest';
import { prng, testSeed } from '../../../../test/helpers/prng';
import type { LedgerEntry, LedgerRestore } from '../ledger';
import { entryToUndo, listRestores, restoreHistory } from './history';

const target = { hash: 'a'.repeat(40), message: 'm_1', session: 's1' };

function restore(rid: string, paths: string[], extra: Partial<LedgerRestore> = {}): LedgerRestore {
  return {
    type: 'restore',
    rid,
    ts: 't',
    mode: 'code',
    target,
    safety: 'b'.repeat(40),
    paths,
    changed: paths,
    conversation: null,
    ...extra,
  };
}
const undo = (rid: string, of: string, paths: string[]) => restore(rid, paths, { undoOf: of });
const states = (l: LedgerEntry[]) => Object.fromEntries(restoreHistory(l).map((h) => [h.entry.rid, h.undone]));
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return 'ok';
};

describe('restore history from the ledger', () => {
  it('an entry is undone when a later undo names it and that undo is not undone itself', () => {
    const l: LedgerEntry[] = [restore('r1', ['a']), undo('u1', 'r1', ['a'])];
    expect(states(l)).toEqual({ r1: true, u1: false });
    l.push(undo('u2', 'u1', ['a'])); // redo
    expect(states(l)).toEqual({ r1: false, u1: true, u2: false });
    l.push(undo('u3', 'u2', ['a'])); // undo the redo
    expect(states(l)).toEqual({ r1: true, u1: false, u2: true, u3: false });
    l.push({ type: 'rollback', rid: 'x', ts: 't', detail: 'rolled back' });
    expect(listRestores(l).map((e) => [e.restore, e.mode, e.undone, e.redo])).toEqual([
      ['u3', 'undo', false, false],
      ['u2', 'undo', true, true],
      ['u1', 'undo', false, false],
      ['r1', 'code', true, undefined],
    ]);
  });

  it('undo by id: free when later entries touched other files; a conflict when one in effect touched the same', () => {
    const l: LedgerEntry[] = [restore('r1', ['a', 'b']), restore('r2', ['c'])];
    expect(entryToUndo(l, 'r1').rid).toBe('r1');
    l.push(restore('r3', ['b']));
    expect(code(() => entryToUndo(l, 'r1'))).toBe('E_UNDO_CONFLICT');
    expect(() => entryToUndo(l, 'r1')).toThrow(/r3 \(code: b\)/);
    expect(listRestores(l).map((e) => e.undoable)).toEqual([true, true, false]);
    l.push(undo('u3', 'r3', ['b'])); // r3 and its undo cancel out
    expect(entryToUndo(l, 'r1').rid).toBe('r1');
    expect(entryToUndo(l).rid).toBe('u3'); // the default: the newest
  });

  it('an undo of an earlier entry is a later change like any other', () => {
    const l: LedgerEntry[] = [restore('r1', ['a']), restore('r2', ['a']), undo('u1', 'r1', ['a'])];
    expect(code(() => entryToUndo(l, 'r2'))).toBe('E_UNDO_CONFLICT');
  });

  it('conversation parts conflict on the same session only', () => {
    const conv = (session: string) => ({ conversation: { session, hide: ['m'], show: [] }, paths: [], changed: [] });
    const l: LedgerEntry[] = [
      restore('r1', [], { mode: 'conversation', ...conv('s1') }),
      restore('r2', [], { mode: 'conversation', ...conv('s2') }),
    ];
    expect(entryToUndo(l, 'r1').rid).toBe('r1');
    l.push(restore('r3', ['x'], { mode: 'both', conversation: { session: 's1', hide: [], show: ['m'] } }));
    expect(() => entryToUndo(l, 'r1')).toThrow(/messages of session s1/);
  });

  it('unknown, already undone, empty', () => {
    expect(code(() => entryToUndo([]))).toBe('E_NOTHING_TO_UNDO');
    const l: LedgerEntry[] = [restore('r1', ['a']), undo('u1', 'r1', ['a'])];
    expect(code(() => entryToUndo(l, 'nope'))).toBe('E_UNKNOWN_RESTORE');
    expect(code(() => entryToUndo(l, 'r1'))).toBe('E_NOTHING_TO_UNDO');
    expect(() => entryToUndo(l, 'r1')).toThrow(/undo u1 to re-apply/);
    l.push({ type: 'rollback', rid: 'r9', ts: 't', detail: 'interrupted' });
    expect(() => entryToUndo(l, 'r9')).toThrow(/rolled back: nothing to undo/);
  });

  it("the panel's undoable flags agree with what undo by id accepts, on 300 random ledgers", () => {
    const seed = testSeed(1414);
    const rnd = prng(seed);
    let accepted = 0;
    for (let trial = 0; trial < 300; trial++) {
      const l: LedgerEntry[] = [];
      for (let i = 0; i < rnd.int(1, 14); i++) {
        const files = ['a', 'b', 'c', 'd'].filter(() => rnd.next() < 0.35);
        const session = rnd.pick(['s1', 's2', null]);
        const extra: Partial<LedgerRestore> = session ? { conversation: { session, hide: [], show: [] } } : {};
        // Undo a random earlier entry the way the engine would (only one it accepts), or restore.
        const earlier = l.filter((e): e is LedgerRestore => e.type === 'restore');
        const target = earlier.length > 0 && rnd.next() < 0.45 ? rnd.pick(earlier) : null;
        if (target && code(() => entryToUndo(l, target.rid)) === 'ok')
          l.push(restore(`u${i}`, target.paths, { undoOf: target.rid, conversation: target.conversation }));
        else l.push(restore(`r${i}`, files, extra));
      }
      for (const e of listRestores(l)) {
        const ok = code(() => entryToUndo(l, e.restore)) === 'ok';
        if (ok) accepted++;
        expect(e.undoable, `seed ${seed}, trial ${trial}, entry ${e.restore}`).toBe(ok);
      }
    }
    expect(accepted).toBeGreaterThan(100); // the trials exercise both answers
  });
});

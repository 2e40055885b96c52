/**
 * Which paths of a pile a scan edit reads again (scanPile.ts): only what moved, was in doubt, was judged for a
 * reason, or left the pile — on real files. The whole snapshot is held to the plain path in scanEdit.test.ts.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace } from '../../../../test/helpers';
import { loadPile, lookBeforeEdit, nextRecord, planPile, storePile, type PileRecord } from './scanPile';

afterAll(cleanupTempDirs);

const TREE = 'a'.repeat(40);
const CAP = 1024;

/** A record of `paths` as an edit would leave it, looked at `lag` ns after now (past any doubt when large). */
async function recordOf(root: string, paths: string[], lag = 5_000_000_000n): Promise<PileRecord> {
  const looked = await lookBeforeEdit(root, paths);
  looked.seenAtNs += lag;
  const captured = new Map(paths.map((p) => [p, looked.stats.get(p) !== null] as const));
  return nextRecord(TREE, CAP, paths, new Map(), looked, captured);
}

describe('the pile record of a scan edit', () => {
  it('keeps what did not move and reads again what did', async () => {
    const root = makeWorkspace({ 'a.ts': 'one\n', 'b.ts': 'two\n', 'd/c.ts': 'three\n', 'd/e.ts': 'four\n' });
    const pile = ['a.ts', 'b.ts', 'd/c.ts', 'd/e.ts', 'gone.ts'];
    const record = await recordOf(root, pile);
    expect(await planPile(root, record, TREE, CAP, pile)).toEqual({
      base: TREE,
      edit: [],
      kept: new Map(pile.map((p) => [p, record.paths.get(p)])),
    });

    writeFileSync(path.join(root, 'a.ts'), 'ONE\n'); // the same size (scanEdit.test.ts also puts the mtime back)
    writeFileSync(path.join(root, 'gone.ts'), 'here now\n'); // was absent
    rmSync(path.join(root, 'b.ts')); // was there
    // The folder renamed and a symlink in its place: the same file (inode) seen through a symlinked parent.
    renameSync(path.join(root, 'd'), path.join(root, 'd2'));
    symlinkSync('d2', path.join(root, 'd'));
    const plan = await planPile(root, record, TREE, CAP, pile);
    expect(plan?.edit).toEqual(['a.ts', 'b.ts', 'd/c.ts', 'd/e.ts', 'gone.ts']);
    expect(plan?.kept.size).toBe(0);
  });

  it('reads again a path looked at within its clock tick, one judged for a reason, and one that left the pile', async () => {
    const root = makeWorkspace({ 'a.ts': 'one\n', 'b.ts': 'two\n', 'big.bin': 'x'.repeat(CAP + 1), 'c.ts': '3\n' });
    const pile = ['a.ts', 'b.ts', 'big.bin', 'c.ts'];
    const looked = await lookBeforeEdit(root, pile);
    looked.seenAtNs += 5_000_000_000n;
    // big.bin: left out as too large (no plain verdict).
    const captured = new Map<string, boolean>([
      ['a.ts', true],
      ['b.ts', true],
      ['c.ts', true],
    ]);
    const record = nextRecord(TREE, CAP, pile, new Map(), looked, captured);
    // a.ts: looked at in the very moment of its last write, as its stamps say: in doubt.
    const a = record.paths.get('a.ts')!;
    record.paths.set('a.ts', { ...a, seenAtNs: a.stat!.ctimeNs });
    expect(record.paths.get('big.bin')).toBeNull();
    // c.ts is back as the index has it: out of the pile.
    const plan = await planPile(root, record, TREE, CAP, ['a.ts', 'b.ts', 'big.bin']);
    expect(plan?.edit).toEqual(['a.ts', 'big.bin', 'c.ts']);
    expect([...(plan?.kept.keys() ?? [])]).toEqual(['b.ts']);
  });

  it('judges again a path that came or went between its look and its read', async () => {
    const root = makeWorkspace({ 'here.ts': 'one\n' });
    const pile = ['here.ts', 'later.ts'];
    const looked = await lookBeforeEdit(root, pile); // here.ts present, later.ts absent
    looked.seenAtNs += 5_000_000_000n;
    // The read found here.ts gone and later.ts there.
    const record = nextRecord(
      TREE,
      CAP,
      pile,
      new Map(),
      looked,
      new Map([
        ['here.ts', false],
        ['later.ts', true],
      ]),
    );
    expect(record.paths.get('here.ts')).toBeNull();
    expect(record.paths.get('later.ts')).toBeNull();
  });

  it('holds only for its own tree and size cap, and survives the state file', async () => {
    const root = makeWorkspace({ 'a.ts': 'one\n' });
    mkdirSync(path.join(root, 'empty'));
    const record = await recordOf(root, ['a.ts']);
    expect(await planPile(root, record, 'c'.repeat(40), CAP, ['a.ts'])).toBeNull();
    expect(await planPile(root, record, TREE, CAP * 2, ['a.ts'])).toBeNull();
    expect(await planPile(root, undefined, TREE, CAP, ['a.ts'])).toBeNull();
    const back = loadPile(JSON.parse(JSON.stringify(storePile(record))));
    expect(back).toEqual(record);
    expect((await planPile(root, back, TREE, CAP, ['a.ts']))?.edit).toEqual([]);
    // Damaged: as if there were none.
    expect(loadPile({ tree: TREE, sizeCap: CAP, paths: { 'a.ts': [['file', 'x'], '1'] } })).toBeUndefined();
    expect(loadPile('nonsense')).toBeUndefined();
  });
});

/**
 * I14: an undo undoes what it names. `retrace undo RID` undoes that restore when nothing later that is still in
 * effect touched the same files (or the same session's messages); otherwise E_UNDO_CONFLICT, nothing changed.
 * `retrace restores` lists the ledger, newest first, with each entry's undone state.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, errorCode, makeWorkspace, runCli, tempHome, treeManifest } from '../helpers';

let home: string;
let root: string;
const opts = () => ({ home, cwd: root });
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const write = (p: string, s: string) => writeFileSync(join(root, p), s);

type Restore = { restore: string; changed: string[] };
type Undo = { undone: string; restore: string; changed: string[] };
type Entry = {
  restore: string;
  mode: string;
  target: { hash: string; message: string; session: string };
  ts: string;
  changed: number;
  undone: boolean;
};

beforeEach(() => {
  home = tempHome();
  root = makeWorkspace({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
});
afterAll(cleanupTempDirs);

/** Checkpoint c1 (a1, b1); edit to a2, b2; checkpoint c2. */
async function twoCheckpoints(): Promise<{ c1: string; c2: string }> {
  const c1 = (await cliJson<{ hash: string }>(['checkpoint', '--session', 's'], opts())).hash;
  write('a.txt', 'a2\n');
  write('b.txt', 'b2\n');
  const c2 = (await cliJson<{ hash: string }>(['checkpoint', '--session', 's'], opts())).hash;
  return { c1, c2 };
}

const restores = () => cliJson<Entry[]>(['restores'], opts());

describe('retrace undo RID', () => {
  it('undoes the named restore while a later restore of other files stays in effect', async () => {
    const { c1 } = await twoCheckpoints();
    const ra = await cliJson<Restore>(['restore', c1, '--code', '--file', 'a.txt'], opts());
    const rb = await cliJson<Restore>(['restore', c1, '--code', '--file', 'b.txt'], opts());
    expect([read('a.txt'), read('b.txt')]).toEqual(['a1\n', 'b1\n']);

    const u = await cliJson<Undo>(['undo', ra.restore], opts());
    expect(u).toEqual({ undone: ra.restore, restore: u.restore, changed: ['a.txt'] });
    // The older restore is undone; the newer one (the default target of a bare `undo`) is not.
    expect([read('a.txt'), read('b.txt')]).toEqual(['a2\n', 'b1\n']);

    const list = await restores();
    expect(list.map((e) => [e.restore, e.mode, e.undone])).toEqual([
      [u.restore, 'undo', false],
      [rb.restore, 'code', false],
      [ra.restore, 'code', true],
    ]);
  });

  it('a later restore of the same file: E_UNDO_CONFLICT naming it and the path, nothing changed', async () => {
    const { c1, c2 } = await twoCheckpoints();
    const ra = await cliJson<Restore>(['restore', c1, '--code'], opts());
    write('a.txt', 'a3\n');
    const rb = await cliJson<Restore>(['restore', c2, '--code', '--file', 'a.txt'], opts());
    const before = treeManifest(root);
    const listBefore = await restores();

    const r = await runCli(['undo', ra.restore, '--json'], opts());
    expect(r.code).toBe(1);
    expect(errorCode(r)).toBe('E_UNDO_CONFLICT');
    expect(r.stderr).toContain(rb.restore);
    expect(r.stderr).toContain('a.txt');
    expect(r.stderr).not.toContain('b.txt'); // b.txt was restored only by ra: no conflict there
    expect(treeManifest(root)).toEqual(before);
    expect(await restores()).toEqual(listBefore);

    // Undo the later one first, then the earlier one is free again.
    await cliJson<Undo>(['undo', rb.restore], opts());
    expect(read('a.txt')).toBe('a3\n');
    const u = await cliJson<Undo>(['undo', ra.restore], opts());
    expect(u.changed.sort()).toEqual(['a.txt', 'b.txt']);
    // The state before ra (the a3 edit made after it is kept in this undo's safety checkpoint).
    expect([read('a.txt'), read('b.txt')]).toEqual(['a2\n', 'b2\n']);
  });

  it('undo of an undo re-applies the restore (redo), by id; an undone entry cannot be undone again', async () => {
    const { c1 } = await twoCheckpoints();
    const ra = await cliJson<Restore>(['restore', c1, '--code'], opts());
    const u1 = await cliJson<Undo>(['undo', ra.restore], opts());
    expect(read('a.txt')).toBe('a2\n');

    const again = await runCli(['undo', ra.restore, '--json'], opts());
    expect(again.code).toBe(1);
    expect(errorCode(again)).toBe('E_NOTHING_TO_UNDO');
    expect(again.stderr).toContain(u1.restore);

    const redo = await cliJson<Undo>(['undo', u1.restore], opts());
    expect(redo.undone).toBe(u1.restore);
    expect([read('a.txt'), read('b.txt')]).toEqual(['a1\n', 'b1\n']);
    const list = await restores();
    expect(list.map((e) => [e.restore, e.mode, e.undone])).toEqual([
      [redo.restore, 'undo', false],
      [u1.restore, 'undo', true],
      [ra.restore, 'code', false],
    ]);
    // The restore is in effect again (the undo and the redo cancel out): undoing it by its own id works again,
    // and then the redo, overwritten, can no longer be undone on its own.
    const u3 = await cliJson<Undo>(['undo', ra.restore], opts());
    expect(u3.undone).toBe(ra.restore);
    expect([read('a.txt'), read('b.txt')]).toEqual(['a2\n', 'b2\n']);
    const under = await runCli(['undo', redo.restore, '--json'], opts());
    expect(errorCode(under)).toBe('E_UNDO_CONFLICT');
    expect(under.stderr).toContain(u3.restore);
    expect([read('a.txt'), read('b.txt')]).toEqual(['a2\n', 'b2\n']);
  });

  it('an unknown id: exit 1, E_UNKNOWN_RESTORE, nothing changed', async () => {
    const { c1 } = await twoCheckpoints();
    await cliJson<Restore>(['restore', c1, '--code'], opts());
    const before = treeManifest(root);
    const r = await runCli(['undo', 'r_doesnotexist', '--json'], opts());
    expect(r.code).toBe(1);
    expect(errorCode(r)).toBe('E_UNKNOWN_RESTORE');
    expect(r.stderr).toMatch(/^retrace: no restore r_doesnotexist/);
    expect(treeManifest(root)).toEqual(before);
    expect(await restores()).toHaveLength(1);
  });

  it('conversation parts: a later rewind of the same session conflicts, one of another session does not', async () => {
    await cliJson(['message', '--session', 's', '--role', 'user', '--text', 'one'], opts());
    const m1 = (await cliJson<{ message: string }>(['checkpoint', '--session', 's'], opts())).message;
    await cliJson(['message', '--session', 's', '--role', 'assistant', '--text', 'two'], opts());
    const m2 = (await cliJson<{ message: string }>(['checkpoint', '--session', 's'], opts())).message;
    await cliJson(['message', '--session', 's', '--role', 'assistant', '--text', 'three'], opts());
    const t1 = (await cliJson<{ message: string }>(['checkpoint', '--session', 't'], opts())).message;
    await cliJson(['message', '--session', 't', '--role', 'assistant', '--text', 'other'], opts());

    const late = await cliJson<Restore>(['restore', m2, '--conversation'], opts());
    const early = await cliJson<Restore>(['restore', m1, '--conversation'], opts());
    const other = await cliJson<Restore>(['restore', t1, '--conversation'], opts());
    const log = async (s: string) =>
      (await cliJson<{ messages: { text: string }[] }>(['log', '--session', s], opts())).messages.map((m) => m.text);
    const visible = await log('s');

    const r = await runCli(['undo', late.restore, '--json'], opts());
    expect(errorCode(r)).toBe('E_UNDO_CONFLICT');
    expect(r.stderr).toContain(early.restore);
    expect(r.stderr).toContain('messages of session s');
    expect(r.stderr).not.toContain(other.restore);
    expect(await log('s')).toEqual(visible);

    // The later rewind of the same session undone first: then the earlier one can be.
    await cliJson<Undo>(['undo', early.restore], opts());
    const u = await runCli(['undo', late.restore], opts());
    expect(u.code).toBe(0);
    expect(await log('s')).toEqual(['one', 'Checkpoint', 'two', 'Checkpoint', 'three']);
    expect(await log('t')).toEqual(['Checkpoint']); // session t's rewind is still in effect
    // Issue 12: a conversation undo says what it did, not "0 files changed back".
    expect(u.stdout).toMatch(/^Undid the restore \(conversation\): the hidden messages are shown again\./);
    expect(u.stdout).not.toMatch(/0 files/);
  });

  it('bare `undo` still takes the newest entry, and toggles on repeat', async () => {
    const { c1 } = await twoCheckpoints();
    await cliJson<Restore>(['restore', c1, '--code', '--file', 'a.txt'], opts());
    const rb = await cliJson<Restore>(['restore', c1, '--code', '--file', 'b.txt'], opts());
    const u = await cliJson<Undo>(['undo'], opts());
    expect(u.undone).toBe(rb.restore);
    expect([read('a.txt'), read('b.txt')]).toEqual(['a1\n', 'b2\n']);
    const u2 = await cliJson<Undo>(['undo'], opts());
    expect(u2.undone).toBe(u.restore);
    expect([read('a.txt'), read('b.txt')]).toEqual(['a1\n', 'b1\n']);
  });
});

describe('retrace restores', () => {
  it('newest first, with mode, target, time, files changed and undone flags; a table for people', async () => {
    expect(await restores()).toEqual([]);
    const { c1 } = await twoCheckpoints();
    const ra = await cliJson<Restore & { target: Entry['target'] }>(['restore', c1, '--both'], opts());
    const u = await cliJson<Undo>(['undo', ra.restore], opts());
    const list = await restores();
    expect(list).toHaveLength(2);
    expect(Object.keys(list[1]!).sort()).toEqual(['changed', 'mode', 'restore', 'target', 'ts', 'undone']);
    expect(list[1]).toEqual({
      restore: ra.restore,
      mode: 'both',
      target: ra.target,
      ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
      changed: 2,
      undone: true,
    });
    expect(list[0]).toEqual({ ...list[0], restore: u.restore, mode: 'undo', changed: 2, undone: false });
    expect(Date.parse(list[0]!.ts)).toBeGreaterThanOrEqual(Date.parse(list[1]!.ts));

    const human = await runCli(['restores'], opts());
    expect(human.code).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RESTORE\s+TIME\s+MODE\s+TARGET\s+FILES\s+STATE$/);
    expect(lines[1]).toContain(u.restore);
    expect(lines[2]).toContain(ra.restore);
    expect(lines[2]).toMatch(/undone$/);
  });
});

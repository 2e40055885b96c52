/**
 * The attic (attic.ts, issue 15): a restore keeps the files it replaced, and a later restore or undo that puts the
 * same content back at the same path renames that very file in. Only ever a file that provably still holds what
 * was checked: one written to since is left where it is, and the content comes from the checkpoint as before.
 */
import {
  appendFileSync,
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../../../test/helpers';
import { resolveWorkspace } from '../workspace';
import { WorkspaceEngine } from '../workspaceEngine';
import { forgetSession } from '../../usecases/storage';
import { Attic } from './attic';

afterAll(cleanupTempDirs);

/** /dev/shm on a file system of its own (tmpfs), apart from the temp folders': where that can be shown. */
const shmElsewhere = existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(os.tmpdir()).dev;

/**
 * A workspace of `files` checkpointed, then changed to `edits` and checkpointed again; `before` runs on the disk then
 * (chmod, a hard link). Returns the first checkpoint to restore to.
 */
async function twoCheckpoints(
  files: Record<string, string>,
  edits: Record<string, string>,
  before: (at: (p: string) => string) => void = () => {},
) {
  const root = makeWorkspace(files);
  const at = (p: string): string => path.join(root, p);
  before(at);
  const ws = await resolveWorkspace(root, { dataHome: tempHome() });
  const engine = new WorkspaceEngine(ws);
  const first = (await engine.checkpoint()).hash!;
  for (const [p, text] of Object.entries(edits)) writeFileSync(at(p), text);
  await engine.checkpoint();
  const ino = (p: string): number => statSync(at(p)).ino;
  return { ws, engine, first, at, ino };
}

async function restoredOnce() {
  const w = await twoCheckpoints(
    { 'a.txt': 'a0\n', 'dir/b.txt': 'b0\n', 'same.txt': 'same\n' },
    { 'a.txt': 'a1\n', 'dir/b.txt': 'b1 longer\n' },
  );
  const atticFolders = (): string[] => {
    const dir = path.join(w.ws.dir, 'attic');
    return existsSync(dir) ? readdirSync(dir).sort() : [];
  };
  const before = { a: w.ino('a.txt'), b: w.ino('dir/b.txt') };
  const restore = await w.engine.restore({ target: w.first, mode: 'code' });
  return { ...w, before, restore, atticFolders };
}

describe('the attic: files a restore replaced, put back instead of written again', () => {
  it('an undo gives back the very files its restore replaced, and a restore back again the ones it wrote', async () => {
    const { engine, at, ino, before, restore, atticFolders } = await restoredOnce();
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a0\n');
    const written = { a: ino('a.txt'), b: ino('dir/b.txt') };
    expect(atticFolders()).toEqual([restore.restore]);

    const undo = await engine.undo();
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a1\n');
    expect(readFileSync(at('dir/b.txt'), 'utf8')).toBe('b1 longer\n');
    expect({ a: ino('a.txt'), b: ino('dir/b.txt') }).toEqual(before);

    await engine.restore({ target: restore.target.hash, mode: 'code' });
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a0\n');
    expect({ a: ino('a.txt'), b: ino('dir/b.txt') }).toEqual(written);
    // The folder of the transaction before the one reused from is gone; the undo's (reused from) and this one's stay.
    expect(atticFolders()).not.toContain(restore.restore);
    expect(atticFolders()).toContain(undo.restore);
  });

  it('a kept file written to since is not put back: the undo writes the checkpoint content instead', async () => {
    const { ws, engine, at, ino, before, restore } = await restoredOnce();
    const folder = path.join(ws.dir, 'attic', restore.restore);
    // What a program holding a descriptor across the restore would do to the replaced file: write to it.
    for (const name of readdirSync(folder).filter((n) => n !== 'manifest.json'))
      appendFileSync(path.join(folder, name), 'late\n');
    await engine.undo();
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a1\n');
    expect(readFileSync(at('dir/b.txt'), 'utf8')).toBe('b1 longer\n');
    expect(ino('a.txt')).not.toBe(before.a);
    expect(ino('dir/b.txt')).not.toBe(before.b);
  });

  it('a kept file is private in the data folder, and goes back with the bits it had at its path', async () => {
    const { ws, engine, first, at, ino } = await twoCheckpoints(
      { 'a.txt': 'a0\n', 'run.sh': 'echo 0\n' },
      { 'a.txt': 'a1\n', 'run.sh': 'echo 1\n' },
      (at) => {
        chmodSync(at('a.txt'), 0o640);
        chmodSync(at('run.sh'), 0o750);
      },
    );
    const inodes = ['a.txt', 'run.sh'].map(ino);
    const { restore } = await engine.restore({ target: first, mode: 'code' });
    const folder = path.join(ws.dir, 'attic', restore);
    for (const name of readdirSync(folder)) expect(statSync(path.join(folder, name)).mode & 0o077).toBe(0);
    await engine.undo();
    expect(['a.txt', 'run.sh'].map(ino)).toEqual(inodes);
    expect(statSync(at('a.txt')).mode & 0o777).toBe(0o640);
    expect(statSync(at('run.sh')).mode & 0o777).toBe(0o750);
  });

  it('a file with another name elsewhere (a hard link) is not kept: the link keeps its content, the undo writes', async () => {
    const { engine, first, at, ino } = await twoCheckpoints({ 'a.txt': 'a0\n' }, { 'a.txt': 'a1\n' });
    linkSync(at('a.txt'), path.join(tempHome(), 'backup-of-a.txt'));
    const before = ino('a.txt');
    await engine.restore({ target: first, mode: 'code' });
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a0\n');
    await engine.undo();
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a1\n');
    expect(ino('a.txt')).not.toBe(before);
  });

  it('a manifest changed on disk since this process wrote it is read again: what it no longer names is not put back', async () => {
    const { ws, engine, at, ino, before, restore } = await restoredOnce();
    const file = path.join(ws.dir, 'attic', restore.restore, 'manifest.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(manifest).sort()).toEqual(['a.txt', 'dir/b.txt']);
    delete manifest['a.txt'];
    writeFileSync(file, JSON.stringify(manifest));
    await engine.undo();
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a1\n');
    expect(ino('a.txt')).not.toBe(before.a);
    expect(ino('dir/b.txt')).toBe(before.b);
  });

  it('what a killed transaction left in the attic (no manifest) is never put back, and the next one drops it', async () => {
    const { ws, engine, at, ino, before, restore, atticFolders } = await restoredOnce();
    // As a kill between keeping and the ledger line leaves it: the files kept, no manifest naming them.
    rmSync(path.join(ws.dir, 'attic', restore.restore, 'manifest.json'));
    mkdirSync(path.join(ws.dir, 'attic', 'r_killed'));
    writeFileSync(path.join(ws.dir, 'attic', 'r_killed', '0'), 'a1\n');
    const undo = await engine.undo();
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a1\n');
    expect(ino('a.txt')).not.toBe(before.a);
    expect(atticFolders()).toEqual([undo.restore]);
  });

  it('forgetting a session leaves nothing in the attic', async () => {
    const { engine, restore, atticFolders } = await restoredOnce();
    expect(atticFolders()).toEqual([restore.restore]);
    await forgetSession(engine, restore.target.session, { force: true });
    expect(atticFolders()).toEqual([]);
  });

  it.skipIf(!shmElsewhere)('is not used where the data folder is on another file system than the workspace', () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    expect(Attic.open('/dev/shm', root, 'r_x')).toBeNull();
    expect(Attic.open(path.dirname(root), root, 'r_x')).not.toBeNull();
  });
});

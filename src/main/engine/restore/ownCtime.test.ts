/**
 * I9's identities of files the last restore of this process renamed into place (restore/fileIdentity.ts, issue 15):
 * such a file's ctime is recent because of our own rename, which alone would make its identity doubtful and its
 * content hashed. When its stat is still exactly what that rename left (ctime included) and its mtime older than the
 * rename, nothing wrote to it since — and only then is it taken without a hash. Any write since is still seen:
 * one that moves the mtime, and one that puts the mtime back (its ctime moved).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../../../test/helpers';
import { objectId } from '../git/looseObject';
import { nowNs, stillAsExpected, lstatIdentity } from '../shadow/fileIdentity';
import { resolveWorkspace } from '../workspace';
import { WorkspaceEngine } from '../workspaceEngine';
import { captureIdentities } from './fileIdentity';

afterAll(cleanupTempDirs);

const blob = (text: string): string => objectId('blob', Buffer.from(text));

/** New content of the same size, the mtime then put back to the nanosecond (`touch -r`, as cp -p or rsync -t do). */
function rewriteKeepingMtime(file: string, text: string): void {
  const ref = `${file}.ref`;
  execFileSync('touch', ['-r', file, ref]);
  writeFileSync(file, text);
  execFileSync('touch', ['-r', ref, file]);
  rmSync(ref);
}

/**
 * a.txt and b.txt edited (their mtimes set 10 s back: "old", as an agent's edits of a minute ago), restored to the
 * first checkpoint and undone: the undo renames the edited files back in from the attic, mtimes untouched.
 */
async function undoneRestore() {
  const root = makeWorkspace({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
  const at = (p: string): string => path.join(root, p);
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempHome() }));
  const first = (await engine.checkpoint()).hash!;
  const old = Date.now() / 1000 - 10;
  for (const p of ['a.txt', 'b.txt']) {
    writeFileSync(at(p), `${p[0]}1\n`);
    utimesSync(at(p), old, old);
  }
  await engine.checkpoint();
  await engine.restore({ target: first, mode: 'code' });
  await engine.undo();
  expect(readFileSync(at('a.txt'), 'utf8')).toBe('a1\n');
  const shadow = await engine.shadow();
  const safety = new Map([
    ['a.txt', blob('a1\n')],
    ['b.txt', blob('b1\n')],
  ]);
  const capture = () => captureIdentities(root, ['a.txt', 'b.txt'], safety, nowNs(), false, shadow.placedLately);
  return { root, at, engine, shadow, capture };
}

describe('identities of files our own last restore renamed into place', () => {
  it('are taken from their stat, without a hash, while they are exactly as our rename left them', async () => {
    const { capture, shadow } = await undoneRestore();
    expect([...shadow.placedLately.keys()].sort()).toEqual(['a.txt', 'b.txt']);
    const ids = await capture();
    expect(ids.get('a.txt')?.ctimeOurs).toBe(true);
    expect(ids.get('b.txt')?.ctimeOurs).toBe(true);
  });

  it('see a write since that moves the mtime: hashed, and a change of content stops the restore', async () => {
    const { at, capture } = await undoneRestore();
    writeFileSync(at('a.txt'), 'A1\n'); // same size, new content, mtime now
    await expect(capture()).rejects.toMatchObject({ code: 'E_CHANGED_DURING_RESTORE' });
  });

  it('see a write since that puts the mtime back (cp -p, rsync -t): its ctime moved, so it is hashed', async () => {
    const { at, capture } = await undoneRestore();
    const mtimeNs = statSync(at('a.txt'), { bigint: true }).mtimeNs;
    rewriteKeepingMtime(at('a.txt'), 'A1\n');
    expect(statSync(at('a.txt'), { bigint: true }).mtimeNs).toBe(mtimeNs);
    await expect(capture()).rejects.toMatchObject({ code: 'E_CHANGED_DURING_RESTORE' });
  });

  it('keep the ctime in the later check: a write between the identities and the rename is seen', async () => {
    const { at, capture } = await undoneRestore();
    const ids = await capture();
    const expectA = ids.get('a.txt')!;
    expect(expectA.ctimeOurs).toBe(true);
    expect(await stillAsExpected(at('a.txt'), await lstatIdentity(at('a.txt')), expectA)).toBe(true);
    rewriteKeepingMtime(at('a.txt'), 'A1\n');
    expect(await stillAsExpected(at('a.txt'), await lstatIdentity(at('a.txt')), expectA)).toBe(false);
  });

  it('are hashed as before for a file the restore wrote just now (its mtime is as recent as the rename)', async () => {
    const root = makeWorkspace({ 'a.txt': 'a0\n' });
    const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempHome() }));
    const first = (await engine.checkpoint()).hash!;
    writeFileSync(path.join(root, 'a.txt'), 'a1\n');
    await engine.checkpoint();
    await engine.restore({ target: first, mode: 'code' }); // writes a.txt anew: mtime and ctime both now
    const shadow = await engine.shadow();
    const ids = await captureIdentities(
      root,
      ['a.txt'],
      new Map([['a.txt', blob('a0\n')]]),
      nowNs(),
      false,
      shadow.placedLately,
    );
    expect(shadow.placedLately.has('a.txt')).toBe(true);
    expect(ids.get('a.txt')?.ctimeOurs).toBeUndefined();
  });
});

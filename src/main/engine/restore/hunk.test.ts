/**
 * One hunk restored or reverted (issue 14 item 2): real files, real git, the engine as the service calls it.
 * Only the hunk's lines change, later edits elsewhere in the file stay, and each is undoable like a restore.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, digest, failure, makeWorkspace, tempHome, treeManifest } from '../../../../test/helpers';
import { resolveWorkspace } from '../workspace';
import { WorkspaceEngine } from '../workspaceEngine';

afterAll(cleanupTempDirs);

const lines = (n: number, edit: Record<number, string> = {}): string =>
  Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

async function setup(content: string) {
  const root = makeWorkspace({ 'a.txt': content, 'b.txt': 'b\n' });
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempHome() }));
  await engine.checkpoint({ session: 's' });
  const at = (p: string) => path.join(root, p);
  const step = async (text: string, write: string): Promise<string> => {
    writeFileSync(at('a.txt'), write);
    return (await engine.checkpoint({ session: 's', text })).hash!;
  };
  return {
    engine,
    step,
    at,
    read: () => readFileSync(at('a.txt'), 'utf8'),
    manifest: () => digest(treeManifest(root)),
  };
}

describe('hunk restore and revert', () => {
  it('since then: restoring one hunk puts only its lines back as the checkpoint had them; undo is exact', async () => {
    const w = await setup(lines(20));
    const cp = await w.step('cp', lines(20));
    writeFileSync(w.at('a.txt'), lines(20, { 3: 'three now', 15: 'fifteen now' }));
    const before = w.manifest();
    // Line 3 (0-based 2), one line each side.
    const r = await w.engine.applyHunk({
      from: cp,
      to: 'working',
      path: 'a.txt',
      hunk: { fromStart: 2, fromCount: 1, toStart: 2, toCount: 1 },
      action: 'restore',
    });
    expect(r).toMatchObject({ mode: 'code', changed: ['a.txt'] });
    expect(r.target.hash).toBe(cp);
    expect(w.read()).toBe(lines(20, { 15: 'fifteen now' }));
    expect((await w.engine.restores())[0]).toMatchObject({ restore: r.restore, mode: 'code' });
    await w.engine.undo(r.restore);
    expect(w.manifest()).toBe(before);
  });

  it("this step: reverting one of the step's hunks keeps its other hunk and later edits", async () => {
    const w = await setup(lines(30));
    const prev = await w.step('prev', lines(30));
    const cp = await w.step('the step', lines(30, { 5: 'five (step)', 20: 'twenty (step)' }));
    await w.step('later', lines(30, { 5: 'five (step)', 20: 'twenty (step)', 28: 'later' }));
    const r = await w.engine.applyHunk({
      from: prev,
      to: cp,
      path: 'a.txt',
      hunk: { fromStart: 19, fromCount: 1, toStart: 19, toCount: 1 },
      action: 'revert',
    });
    expect(r.mode).toBe('revert');
    expect(w.read()).toBe(lines(30, { 5: 'five (step)', 28: 'later' }));

    // Restore brings the compared checkpoint's version of that hunk back into the files now.
    const back = await w.engine.applyHunk({
      from: prev,
      to: cp,
      path: 'a.txt',
      hunk: { fromStart: 19, fromCount: 1, toStart: 19, toCount: 1 },
      action: 'restore',
    });
    expect(back.mode).toBe('code');
    expect(w.read()).toBe(lines(30, { 5: 'five (step)', 20: 'twenty (step)', 28: 'later' }));
  });

  it('insertions and deletions: a hunk of added lines is removed, a hunk of removed lines comes back', async () => {
    const w = await setup('a\nb\nc\nd\n');
    const prev = await w.step('prev', 'a\nb\nc\nd\n');
    const cp = await w.step('the step', 'a\nnew 1\nnew 2\nb\nd\n');
    await w.engine.applyHunk({
      from: prev,
      to: cp,
      path: 'a.txt',
      hunk: { fromStart: 1, fromCount: 0, toStart: 1, toCount: 2 },
      action: 'revert',
    });
    expect(w.read()).toBe('a\nb\nd\n');
    await w.engine.applyHunk({
      from: prev,
      to: cp,
      path: 'a.txt',
      hunk: { fromStart: 2, fromCount: 1, toStart: 4, toCount: 0 },
      action: 'revert',
    });
    expect(w.read()).toBe('a\nb\nc\nd\n');
  });

  it("a file's last line without a newline: the editor's extra empty line is not a line of the file", async () => {
    const w = await setup('a\n');
    const prev = await w.step('prev', 'a\n');
    const cp = await w.step('the step', 'a\nb');
    // The editor sees ['a', ''] → ['a', 'b']: line 2 changed on both sides.
    await w.engine.applyHunk({
      from: prev,
      to: cp,
      path: 'a.txt',
      hunk: { fromStart: 1, fromCount: 1, toStart: 1, toCount: 1 },
      action: 'revert',
    });
    expect(w.read()).toBe('a\n');
  });

  it('a hunk whose lines changed since is E_CONFLICT and nothing changes; bad ranges are refused', async () => {
    const w = await setup(lines(10));
    const prev = await w.step('prev', lines(10));
    const cp = await w.step('the step', lines(10, { 4: 'four (step)' }));
    writeFileSync(w.at('a.txt'), lines(10, { 4: 'four (edited since)' }));
    const before = w.manifest();
    const hunk = { fromStart: 3, fromCount: 1, toStart: 3, toCount: 1 };
    const e = await failure(w.engine.applyHunk({ from: prev, to: cp, path: 'a.txt', hunk, action: 'revert' }));
    expect(e.code).toBe('E_CONFLICT');
    expect(w.manifest()).toBe(before);
    const bad = { fromStart: 9, fromCount: 5, toStart: 3, toCount: 1 };
    const e2 = await failure(w.engine.applyHunk({ from: prev, to: cp, path: 'a.txt', hunk: bad, action: 'revert' }));
    expect(e2.code).toBe('E_INVALID_INPUT');
    expect(w.manifest()).toBe(before);
    expect(await w.engine.restores()).toEqual([]);
  });
});

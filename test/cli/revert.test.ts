/**
 * `retrace revert CHECKPOINT` (issue 14 item 1) through the real CLI, real git, real files: one step taken back
 * from the files as they are now, every later change kept; conflicts refused with nothing changed, or written
 * as git's markers with --merge; added, deleted and renamed files, binaries and symlinks; undo, undo of the
 * undo, and a kill midway rolled back by the next command.
 */
import {
  existsSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  cliJson,
  digest,
  errorCode,
  makeWorkspace,
  runCli,
  tempHome,
  treeManifest,
  type TreeSpec,
} from '../helpers';

afterAll(cleanupTempDirs);

type Revert = {
  restore: string;
  mode: string;
  target: { hash: string; message: string; session: string };
  safety: string | null;
  changed: string[];
  conflicts: { path: string; hunks: number }[];
  dryRun: boolean;
};

const lines = (n: number, edit: Record<number, string> = {}): string =>
  Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

/** A workspace with a first checkpoint of `spec`, and a function that records the next step of session s. */
async function session(spec: TreeSpec) {
  const root = makeWorkspace(spec);
  const home = tempHome();
  const o = { home, cwd: root };
  await cliJson(['checkpoint', '--session', 's', '--text', 'start'], o);
  const step = async (text: string, change: () => void): Promise<string> => {
    change();
    const r = await cliJson(['message', '--session', 's', '--role', 'assistant', '--text', text, '--checkpoint'], o);
    return r.hash as string;
  };
  const at = (p: string) => join(root, p);
  const read = (p: string) => readFileSync(at(p), 'utf8');
  return { root, home, o, step, at, read, manifest: () => digest(treeManifest(root)) };
}

describe('retrace revert', () => {
  it('takes back a middle step and keeps the steps after it; undo and undo of the undo are exact', async () => {
    const w = await session({ 'a.txt': lines(12), 'b.txt': 'b1\n', 'c.txt': 'c1\n' });
    await w.step('step 1', () => writeFileSync(w.at('c.txt'), 'c2\n'));
    const middle = await w.step('step 2', () => {
      writeFileSync(w.at('a.txt'), lines(12, { 2: 'two (step 2)' }));
      writeFileSync(w.at('b.txt'), 'b2\n');
    });
    await w.step('step 3', () => writeFileSync(w.at('a.txt'), lines(12, { 2: 'two (step 2)', 11: 'eleven (step 3)' })));
    writeFileSync(w.at('c.txt'), 'c3 (not checkpointed yet)\n');
    const before = w.manifest();

    const preview = await cliJson<Revert>(['revert', middle, '--dry-run'], w.o);
    expect(preview).toMatchObject({ mode: 'revert', dryRun: true, safety: null, conflicts: [] });
    expect(preview.changed.sort()).toEqual(['a.txt', 'b.txt']);
    expect(w.manifest(), 'a dry run changes nothing').toBe(before);

    const r = await cliJson<Revert>(['revert', middle], w.o);
    expect(Object.keys(r).sort()).toEqual(['changed', 'conflicts', 'dryRun', 'mode', 'restore', 'safety', 'target']);
    expect(r).toMatchObject({ mode: 'revert', dryRun: false, conflicts: [], target: { hash: middle, session: 's' } });
    expect(r.safety).toMatch(/^[0-9a-f]{40}$/);
    expect(r.changed.sort()).toEqual(['a.txt', 'b.txt']);
    expect(w.read('a.txt'), "step 2's line back, step 3's kept").toBe(lines(12, { 11: 'eleven (step 3)' }));
    expect(w.read('b.txt')).toBe('b1\n');
    expect(w.read('c.txt'), 'untouched by the step: left as it is').toBe('c3 (not checkpointed yet)\n');
    const reverted = w.manifest();

    const listed = await cliJson<{ restore: string; mode: string; undone: boolean }[]>(['restores'], w.o);
    expect(listed[0]).toMatchObject({ restore: r.restore, mode: 'revert', undone: false });

    const u = await cliJson<{ undone: string; restore: string }>(['undo', r.restore], w.o);
    expect(u.undone).toBe(r.restore);
    expect(w.manifest(), 'undo brings back the exact state before').toBe(before);
    await cliJson(['undo', u.restore], w.o);
    expect(w.manifest(), 'undo of the undo re-applies the revert').toBe(reverted);
  });

  it('refuses a conflict with E_CONFLICT naming each file and its hunks, and changes nothing', async () => {
    const w = await session({ 'a.txt': lines(20), 'b.txt': 'b1\n' });
    const middle = await w.step('step 1', () => {
      writeFileSync(w.at('a.txt'), lines(20, { 3: 'three (1)', 17: 'seventeen (1)' }));
      writeFileSync(w.at('b.txt'), 'b2\n');
    });
    await w.step('step 2', () => writeFileSync(w.at('a.txt'), lines(20, { 3: 'three (2)', 17: 'seventeen (2)' })));
    const before = w.manifest();

    const res = await runCli(['revert', middle, '--json'], w.o);
    expect(res.code).toBe(1);
    expect(errorCode(res)).toBe('E_CONFLICT');
    expect(res.stderr).toContain('a.txt (2 hunks)');
    expect(res.stderr).not.toContain('b.txt');
    expect(w.manifest(), 'nothing changed, b.txt included').toBe(before);
    expect(await cliJson<unknown[]>(['restores'], w.o)).toEqual([]);

    const dry = await cliJson<Revert>(['revert', middle, '--dry-run'], w.o);
    expect(dry.conflicts).toEqual([{ path: 'a.txt', hunks: 2 }]);
    expect(w.manifest()).toBe(before);
  });

  it('--merge writes git conflict markers; undo brings back the exact prior state', async () => {
    const w = await session({ 'a.txt': lines(20), 'b.txt': 'b1\n' });
    const middle = await w.step('step 1', () => {
      writeFileSync(w.at('a.txt'), lines(20, { 3: 'three (1)', 10: 'ten (1)' }));
      writeFileSync(w.at('b.txt'), 'b2\n');
    });
    await w.step('step 2', () => writeFileSync(w.at('a.txt'), lines(20, { 3: 'three (2)', 10: 'ten (1)' })));
    const before = w.manifest();

    const r = await cliJson<Revert>(['revert', middle, '--merge'], w.o);
    expect(r.conflicts).toEqual([{ path: 'a.txt', hunks: 1 }]);
    expect(r.changed.sort()).toEqual(['a.txt', 'b.txt']);
    const merged = w.read('a.txt');
    expect(merged.match(/^<<<<<<< /gm)).toHaveLength(1);
    expect(merged).toMatch(/^<<<<<<< .*\nthree \(2\)\n=======\nline 3\n>>>>>>> .*$/m);
    expect(merged).toContain('\nline 10\n'); // the clean part of the same file is reverted
    expect(w.read('b.txt')).toBe('b1\n');

    await cliJson(['undo'], w.o);
    expect(w.manifest()).toBe(before);
  });

  it('a step that added, deleted and renamed files is taken back, later edits to the renamed file kept', async () => {
    const body = lines(30);
    const w = await session({ 'old.ts': body, 'gone.txt': 'to be deleted\n', 'keep.txt': 'k\n' });
    const middle = await w.step('reorganise', () => {
      renameSync(w.at('old.ts'), w.at('moved.ts'));
      rmSync(w.at('gone.txt'));
      writeFileSync(w.at('added.txt'), 'new file\n');
    });
    await w.step('edit the moved file', () => writeFileSync(w.at('moved.ts'), lines(30, { 25: 'edited later' })));

    const r = await cliJson<Revert>(['revert', middle], w.o);
    expect(r.conflicts).toEqual([]);
    expect(r.changed.sort()).toEqual(['added.txt', 'gone.txt', 'moved.ts', 'old.ts']);
    expect(existsSync(w.at('added.txt')), 'an added file unchanged since is deleted').toBe(false);
    expect(w.read('gone.txt'), 'a deleted file comes back').toBe('to be deleted\n');
    expect(existsSync(w.at('moved.ts'))).toBe(false);
    expect(w.read('old.ts'), 'renamed back, the later edit kept').toBe(lines(30, { 25: 'edited later' }));
  });

  it('an added file changed since, and a deleted path taken by a new file, conflict', async () => {
    const w = await session({ 'gone.txt': 'old\n' });
    const middle = await w.step('add and delete', () => {
      writeFileSync(w.at('added.txt'), 'new file\n');
      rmSync(w.at('gone.txt'));
    });
    await w.step('later', () => {
      writeFileSync(w.at('added.txt'), 'new file, edited later\n');
      writeFileSync(w.at('gone.txt'), 'another file under the same name\n');
    });
    const before = w.manifest();
    const res = await runCli(['revert', middle, '--json'], w.o);
    expect(errorCode(res)).toBe('E_CONFLICT');
    expect(res.stderr).toContain('added.txt (1 hunk)');
    expect(res.stderr).toContain('gone.txt');
    expect(w.manifest()).toBe(before);
  });

  it('binary files: taken back when unchanged since, a conflict when changed since', async () => {
    const bin = (n: number) => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, n, 0xff, 0]);
    const w = await session({ 'img.png': bin(1), 'other.png': bin(1) });
    const middle = await w.step('new images', () => {
      writeFileSync(w.at('img.png'), bin(2));
      writeFileSync(w.at('other.png'), bin(2));
    });
    await w.step('later', () => writeFileSync(w.at('other.png'), bin(3)));

    const res = await runCli(['revert', middle, '--json'], w.o);
    expect(errorCode(res)).toBe('E_CONFLICT');
    expect(res.stderr).toContain('other.png (1 hunk)');
    expect(readFileSync(w.at('img.png'))).toEqual(bin(2));

    const r = await cliJson<Revert>(['revert', middle, '--file', 'img.png'], w.o);
    expect(r.changed).toEqual(['img.png']);
    expect(readFileSync(w.at('img.png'))).toEqual(bin(1));
    expect(readFileSync(w.at('other.png'))).toEqual(bin(3));
  });

  it('symlinks: a retargeted link is taken back; one retargeted again since conflicts', async () => {
    const w = await session({
      'a.md': 'a\n',
      'b.md': 'b\n',
      'c.md': 'c\n',
      link: { symlink: 'a.md' },
      link2: { symlink: 'a.md' },
    });
    const middle = await w.step('retarget', () => {
      for (const l of ['link', 'link2']) {
        unlinkSync(w.at(l));
        symlinkSync('b.md', w.at(l));
      }
    });
    await w.step('later', () => {
      unlinkSync(w.at('link2'));
      symlinkSync('c.md', w.at('link2'));
    });
    const res = await runCli(['revert', middle, '--json'], w.o);
    expect(errorCode(res)).toBe('E_CONFLICT');
    expect(res.stderr).toContain('link2 (1 hunk)');

    const r = await cliJson<Revert>(['revert', middle, '--file', 'link'], w.o);
    expect(r.changed).toEqual(['link']);
    expect(readlinkSync(w.at('link'))).toBe('a.md');
    expect(readlinkSync(w.at('link2'))).toBe('c.md');
  });

  it('bad input: the first checkpoint, a file the step did not change, an unknown checkpoint', async () => {
    const w = await session({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const middle = await w.step('edit a', () => writeFileSync(w.at('a.txt'), 'a2\n'));
    const first = (await cliJson<{ messages: { hash: string | null }[] }>(['log', '--session', 's'], w.o)).messages[0]!
      .hash!;
    expect(errorCode(await runCli(['revert', first, '--json'], w.o))).toBe('E_INVALID_INPUT');
    expect(errorCode(await runCli(['revert', middle, '--file', 'b.txt', '--json'], w.o))).toBe('E_INVALID_INPUT');
    expect(errorCode(await runCli(['revert', 'deadbeefdead', '--json'], w.o))).toBe('E_UNKNOWN_CHECKPOINT');
    expect(w.read('a.txt')).toBe('a2\n');
  });

  for (const step of ['restore:after-journal', 'restore:mid-apply', 'restore:after-apply'] as const) {
    it(`a revert killed (SIGKILL) at ${step} is rolled back by the next command`, async () => {
      const spec: TreeSpec = {};
      for (let i = 0; i < 6; i++) spec[`f${i}.txt`] = lines(10);
      const w = await session(spec);
      const middle = await w.step('edit all', () => {
        for (let i = 0; i < 6; i++) writeFileSync(w.at(`f${i}.txt`), lines(10, { 2: `two ${i}` }));
      });
      await w.step('later', () => {
        for (let i = 0; i < 6; i++) writeFileSync(w.at(`f${i}.txt`), lines(10, { 2: `two ${i}`, 9: 'nine' }));
      });
      const before = w.manifest();
      const killed = await runCli(['revert', middle, '--json'], {
        ...w.o,
        env: { RETRACE_TEST_FAULTS: '1', RETRACE_FAULT: step },
      });
      expect(killed.signal).toBe('SIGKILL');

      const st = await cliJson<{ recovered: { kind: string }[]; lastRestore: unknown }>(['status'], w.o);
      expect(st.recovered.map((x) => x.kind)).toContain('restore-rolled-back');
      expect(st.lastRestore).toBeNull();
      expect(w.manifest(), 'files rolled back').toBe(before);

      const r = await cliJson<Revert>(['revert', middle], w.o);
      expect(r.changed).toHaveLength(6);
      expect(w.read('f0.txt')).toBe(lines(10, { 9: 'nine' }));
    });
  }
});

/**
 * The restore transaction under real conditions (issue 10): another program writing during the restore (I9),
 * hard links (item 7), failures of the disk and the OS midway (items 8, 12), exact modes and folders (I11).
 * Real files, real git; moments inside the apply are reached with the test hooks of faults.ts.
 */
import {
  appendFileSync,
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, failure, makeWorkspace, tempDir, tempHome, treeManifest } from '../../../../test/helpers';
import { mountTmpfs, unmountTmpfs } from '../../../../test/helpers/fullDisk';
import { resetErrnoFaults, setTestHook, TEST_HOOK_POINTS } from '../faults';
import { resolveWorkspace } from '../workspace';
import { WorkspaceEngine } from '../workspaceEngine';

beforeAll(() => {
  process.env.RETRACE_TEST_FAULTS = '1';
});
afterEach(() => {
  for (const p of TEST_HOOK_POINTS) setTestHook(p, null);
  delete process.env.RETRACE_FAULT_ERRNO;
  resetErrnoFaults();
});
afterAll(() => {
  delete process.env.RETRACE_TEST_FAULTS;
  cleanupTempDirs();
});

async function setup(spec: Parameters<typeof makeWorkspace>[0]) {
  const home = tempHome();
  const root = makeWorkspace(spec);
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
  const first = await engine.checkpoint();
  return { root, engine, hash: first.hash!, at: (p: string) => path.join(root, p) };
}

/** A hook for the first time `match` is passed (the rollback's own apply passes the same points again). */
const firstAt = (match: string, fn: (abs: string) => void): ((abs: string) => void) => {
  let fired = false;
  return (abs) => {
    if (fired || !abs.endsWith(match)) return;
    fired = true;
    fn(abs);
  };
};
const mode = (p: string): string => (statSync(p).mode & 0o7777).toString(8);

describe('I9: nothing written during a restore is lost', () => {
  it('a file appended after the safety checkpoint is not overwritten: E_CHANGED_DURING_RESTORE, rolled back', async () => {
    const { root, engine, hash, at } = await setup({ 'a.txt': 'a1\n', 'b.txt': 'b1\n', 'c.txt': 'c1\n' });
    for (const f of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(at(f), `${f} edited\n`);
    const before = treeManifest(root);
    setTestHook(
      'apply:before-write',
      firstAt('b.txt', (abs) => appendFileSync(abs, 'appended by the agent\n')),
    );
    const e = await failure(engine.restore({ target: hash, mode: 'code' }));
    expect(e.code).toBe('E_CHANGED_DURING_RESTORE');
    expect(e.message).toContain('b.txt');
    expect(e.message).toContain('rolled back');
    expect(readFileSync(at('b.txt'), 'utf8')).toBe('b.txt edited\nappended by the agent\n');
    // a.txt was written before b.txt and is back as it was; no side file is left anywhere
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a.txt edited\n');
    const after = treeManifest(root);
    after.delete('b.txt');
    before.delete('b.txt');
    expect(after).toEqual(before);
  });

  it('a write through a descriptor opened before the rename lands in the replaced file: it is put back', async () => {
    const { engine, hash, at } = await setup({ 'log.txt': 'one\n' });
    writeFileSync(at('log.txt'), 'one\ntwo\n');
    let fd = -1;
    setTestHook('apply:before-rename', (abs) => {
      fd = openSync(abs, 'a');
    });
    setTestHook('apply:after-rename', () => {
      writeSync(fd, 'three (written through an fd held across the rename)\n');
      closeSync(fd);
    });
    const e = await failure(engine.restore({ target: hash, mode: 'code' }));
    expect(e.code).toBe('E_CHANGED_DURING_RESTORE');
    expect(readFileSync(at('log.txt'), 'utf8')).toBe(
      'one\ntwo\nthree (written through an fd held across the rename)\n',
    );
  });

  it('the rollback never overwrites a file changed after the restore wrote it', async () => {
    const { engine, hash, at } = await setup({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    writeFileSync(at('a.txt'), 'a2\n');
    writeFileSync(at('b.txt'), 'b2\n');
    setTestHook(
      'apply:before-place',
      firstAt('b.txt', (abs) => {
        appendFileSync(at('a.txt'), 'the agent, after the restore wrote a.txt\n'); // a.txt now holds a1 + this
        appendFileSync(abs, 'and b.txt too\n');
      }),
    );
    const e = await failure(engine.restore({ target: hash, mode: 'code' }));
    expect(e.code).toBe('E_CHANGED_DURING_RESTORE');
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a1\nthe agent, after the restore wrote a.txt\n');
    expect(readFileSync(at('b.txt'), 'utf8')).toBe('b2\nand b.txt too\n');
    const status = await engine.status();
    expect(status.recovered.map((r) => r.detail).join('\n')).toContain('a.txt');
  });

  it('a file changed after a restore is kept by the undo in its own safety checkpoint: undoing the undo brings it back', async () => {
    const { engine, hash, at } = await setup({ 'a.txt': 'a1\n' });
    writeFileSync(at('a.txt'), 'a2\n');
    await engine.restore({ target: hash, mode: 'code' });
    writeFileSync(at('a.txt'), 'a1 and the agent kept going\n');
    await engine.undo();
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a2\n');
    await engine.undo(); // undoing the undo brings back what was there when the undo ran
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a1 and the agent kept going\n');
  });
});

/** Every line in `rel` and in any copy a restore kept beside it. */
const linesAround = (root: string, rel: string): string[] => {
  const dir = path.dirname(path.join(root, rel));
  const base = path.basename(rel);
  return readdirSync(dir)
    .filter((n) => n === base || n.startsWith(`${base}.retrace-kept-`))
    .flatMap((n) => readFileSync(path.join(dir, n), 'utf8').split('\n'));
};

describe('I9: an undone run puts files back without losing a write that lands while it does', () => {
  it('an append between the put-back check and its rename is kept (a CI run lost three lines here)', async () => {
    const { root, engine, hash, at } = await setup({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    writeFileSync(at('a.txt'), 'a2\n');
    writeFileSync(at('b.txt'), 'b2\n');
    // b.txt changes under the restore, after a.txt was written: the run is undone and a.txt put back.
    setTestHook(
      'apply:before-write',
      firstAt('b.txt', (abs) => appendFileSync(abs, 'b changed\n')),
    );
    let raced = false;
    setTestHook(
      'apply:before-put-back',
      firstAt('a.txt', (abs) => {
        appendFileSync(abs, 'the agent, while a.txt was being put back\n');
        raced = true;
      }),
    );
    const e = await failure(engine.restore({ target: hash, mode: 'code' }));
    expect(raced).toBe(true);
    expect(e.code).toBe('E_CHANGED_DURING_RESTORE');
    expect(linesAround(root, 'a.txt')).toContain('the agent, while a.txt was being put back');
    expect(e.message).toContain('a.txt.retrace-kept-');
    expect(readFileSync(at('b.txt'), 'utf8')).toBe('b2\nb changed\n');
  });

  it('a write into a created file while the undo takes it away is put back, not unlinked', async () => {
    const { root, engine, hash, at } = await setup({ 'c.txt': 'c1\n', 'z.txt': 'z1\n' });
    rmSync(at('c.txt')); // the restore creates c.txt, then fails at z.txt and takes c.txt away again
    writeFileSync(at('z.txt'), 'z2\n');
    let fd = -1;
    setTestHook(
      'apply:after-rename',
      firstAt('c.txt', (abs) => {
        fd = openSync(abs, 'a');
      }),
    );
    setTestHook(
      'apply:before-write',
      firstAt('z.txt', (abs) => appendFileSync(abs, 'z changed\n')),
    );
    setTestHook(
      'apply:before-drop-created',
      firstAt('c.txt', () => {
        writeSync(fd, 'written through a descriptor the agent held\n');
        closeSync(fd);
      }),
    );
    const e = await failure(engine.restore({ target: hash, mode: 'code' }));
    expect(e.code).toBe('E_CHANGED_DURING_RESTORE');
    expect(fd).toBeGreaterThan(-1);
    expect(linesAround(root, 'c.txt')).toContain('written through a descriptor the agent held');
    expect(readFileSync(at('c.txt'), 'utf8')).toBe('c1\nwritten through a descriptor the agent held\n');
  });
});

describe('item 7: never through a hard link', () => {
  it('a file hard-linked to a backup outside the folder gets a new file; the backup keeps its content', async () => {
    const { engine, hash, at } = await setup({ 'src/app.ts': 'v1\n' });
    writeFileSync(at('src/app.ts'), 'v2\n');
    const backup = path.join(tempDir('retrace-backup-'), 'app.ts');
    linkSync(at('src/app.ts'), backup); // as `cp -al` makes it
    chmodSync(at('src/app.ts'), 0o640);
    await engine.restore({ target: hash, mode: 'code' });
    expect(readFileSync(at('src/app.ts'), 'utf8')).toBe('v1\n');
    expect(readFileSync(backup, 'utf8')).toBe('v2\n');
    expect(statSync(at('src/app.ts')).ino).not.toBe(statSync(backup).ino);
    expect(mode(at('src/app.ts'))).toBe('640'); // the bits the user chose stay
  });
});

describe('I11: exact permission bits and folders through restore and undo', () => {
  it('a 0600 key in a 0700 folder that a restore deletes comes back by undo as 0600 in 0700', async () => {
    const { engine, hash, at } = await setup({ 'a.txt': 'a\n' });
    mkdirSync(at('keys'), { mode: 0o700 });
    chmodSync(at('keys'), 0o700);
    writeFileSync(at('keys/id'), 'private\n', { mode: 0o600 });
    chmodSync(at('keys/id'), 0o600);
    await engine.restore({ target: hash, mode: 'code' });
    expect(existsSync(at('keys'))).toBe(false);
    await engine.undo();
    expect(readFileSync(at('keys/id'), 'utf8')).toBe('private\n');
    expect(mode(at('keys'))).toBe('700');
    expect(mode(at('keys/id'))).toBe('600');
  });

  it('a 0600 file the undo must write anew (hard-linked, so not kept by the restore) comes back as 0600', async () => {
    const { engine, hash, at } = await setup({ 'a.txt': 'a\n' });
    writeFileSync(at('id'), 'private\n', { mode: 0o600 });
    chmodSync(at('id'), 0o600);
    linkSync(at('id'), path.join(tempDir('retrace-link-'), 'id'));
    await engine.restore({ target: hash, mode: 'code' });
    expect(existsSync(at('id'))).toBe(false);
    await engine.undo();
    expect(readFileSync(at('id'), 'utf8')).toBe('private\n');
    expect(mode(at('id'))).toBe('600');
  });

  it('undo keeps an empty folder that existed before the restore', async () => {
    const { engine, at } = await setup({ 'a.txt': 'a\n', 'box/x.txt': 'x\n' });
    const withX = (await engine.checkpoint()).hash!;
    rmSync(at('box/x.txt')); // box/ stays, empty
    chmodSync(at('box'), 0o750);
    await engine.restore({ target: withX, mode: 'code' });
    expect(readFileSync(at('box/x.txt'), 'utf8')).toBe('x\n');
    await engine.undo();
    expect(existsSync(at('box/x.txt'))).toBe(false);
    expect(statSync(at('box')).isDirectory()).toBe(true);
    expect(mode(at('box'))).toBe('750');
  });
});

describe('item 12: folders, permissions, busy files', () => {
  it('a folder holding only an empty subfolder is replaced by the file, as --dry-run said', async () => {
    const { engine, hash, at } = await setup({ d: 'a file\n' });
    rmSync(at('d'));
    mkdirSync(at('d/empty'), { recursive: true });
    const preview = await engine.restore({ target: hash, mode: 'code', dryRun: true });
    expect(preview.changed).toEqual(['d']);
    expect(preview.skipped ?? []).toEqual([]);
    const r = await engine.restore({ target: hash, mode: 'code' });
    expect(r.changed).toEqual(['d']);
    expect(readFileSync(at('d'), 'utf8')).toBe('a file\n');
    await engine.undo();
    expect(statSync(at('d/empty')).isDirectory()).toBe(true);
  });

  it('EACCES from a read-only folder gives E_PERMISSION naming the path, rolled back', async () => {
    if (process.getuid?.() === 0) {
      // root ignores permission bits: the OS refusal is injected the way the OS would report it
      process.env.RETRACE_FAULT_ERRNO = 'EACCES@apply:rename#2';
    }
    const { engine, hash, at } = await setup({ 'a.txt': 'a1\n', 'ro/b.txt': 'b1\n' });
    writeFileSync(at('a.txt'), 'a2\n');
    writeFileSync(at('ro/b.txt'), 'b2\n');
    chmodSync(at('ro'), 0o555);
    try {
      const e = await failure(engine.restore({ target: hash, mode: 'code' }));
      expect(e.code).toBe('E_PERMISSION');
      expect(e.message).toContain('ro/b.txt');
      expect(e.message).toContain('rolled back');
      expect(readFileSync(at('a.txt'), 'utf8')).toBe('a2\n');
      expect(readFileSync(at('ro/b.txt'), 'utf8')).toBe('b2\n');
    } finally {
      chmodSync(at('ro'), 0o755);
    }
  });

  it('a busy file (EBUSY) names the file; a rollback that cannot finish waits, recording keeps working', async () => {
    const { engine, hash, at } = await setup({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    writeFileSync(at('a.txt'), 'a2\n');
    writeFileSync(at('b.txt'), 'b2\n');
    process.env.RETRACE_FAULT_ERRNO = 'EBUSY@apply:rename#2'; // b.txt is held open by an editor
    const e = await failure(engine.restore({ target: hash, mode: 'code' }));
    expect(e.code).toBe('E_FILE_BUSY');
    expect(e.message).toContain('b.txt');
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a2\n');

    // Now a restore whose rollback is blocked too: every rename fails.
    const mid = (await engine.checkpoint()).hash!;
    writeFileSync(at('a.txt'), 'a3\n');
    writeFileSync(at('b.txt'), 'b3\n');
    process.env.RETRACE_FAULT_ERRNO = 'EBUSY@apply:rename#*';
    const e2 = await failure(engine.restore({ target: hash, mode: 'code' }));
    expect(e2.code).toBe('E_FILE_BUSY');
    // recording still works while the rollback waits
    const cp = await engine.checkpoint();
    expect(cp.hash).toMatch(/^[0-9a-f]{40}$/);
    // a new restore refuses to start over the unfinished rollback, naming why
    const e3 = await failure(engine.restore({ target: mid, mode: 'code' }));
    expect(e3.code).toBe('E_FILE_BUSY');
    // the file is free again: the next command finishes it
    delete process.env.RETRACE_FAULT_ERRNO;
    await engine.checkpoint();
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a3\n');
    expect(readFileSync(at('b.txt'), 'utf8')).toBe('b3\n');
    await engine.restore({ target: mid, mode: 'code' });
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a2\n');
  });
});

describe('item 8: a full disk', () => {
  it('ENOSPC midway (injected): no file is truncated, everything rolled back, E_NO_SPACE names the file', async () => {
    const big = Buffer.alloc(1_500_000, 'x');
    const { root, engine, hash, at } = await setup({ 'a.bin': big, 'b.bin': big, 'c.txt': 'c1\n' });
    writeFileSync(at('a.bin'), 'small now\n');
    writeFileSync(at('b.bin'), 'small too\n');
    writeFileSync(at('c.txt'), 'c2\n');
    const before = treeManifest(root);
    process.env.RETRACE_FAULT_ERRNO = 'ENOSPC@apply:write-file#2';
    const e = await failure(engine.restore({ target: hash, mode: 'code' }));
    expect(e.code).toBe('E_NO_SPACE');
    expect(e.message).toContain('b.bin');
    expect(e.message).toContain('rolled back');
    expect(treeManifest(root)).toEqual(before);
  });

  it('on a real 2 MiB disk: the restore is refused up front with what it needs; a file never ends half-written', async (ctx) => {
    const mnt = tempDir('retrace-tmpfs-');
    const why = mountTmpfs(mnt, '2m');
    if (why) return ctx.skip(why);
    try {
      const root = path.join(mnt, 'ws');
      mkdirSync(root);
      const big = path.join(root, 'big.bin');
      writeFileSync(big, Buffer.alloc(1_500_000, 'y'));
      const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempHome() }));
      const hash = (await engine.checkpoint()).hash!;
      writeFileSync(big, 'tiny\n');
      // 1. Not enough room for the 1.5 MB the restore writes: refused before anything changes.
      writeFileSync(path.join(root, 'filler.bin'), Buffer.alloc(1_000_000, 'f'));
      const e = await failure(engine.restore({ target: hash, mode: 'code' }));
      expect(e.code).toBe('E_NO_SPACE');
      expect(e.message).toMatch(/needed, .* available/);
      expect(readFileSync(big, 'utf8')).toBe('tiny\n');
      // 2. Room at the start, and the disk fills up while the restore runs: a real ENOSPC midway.
      rmSync(path.join(root, 'filler.bin'));
      setTestHook(
        'apply:before-write',
        firstAt('big.bin', () => {
          try {
            writeFileSync(path.join(mnt, 'other-program.bin'), Buffer.alloc(2_000_000, 'o'));
          } catch {
            // the disk is full now, as wanted
          }
        }),
      );
      const e2 = await failure(engine.restore({ target: hash, mode: 'code' }));
      expect(e2.code).toBe('E_NO_SPACE');
      expect(e2.message).toContain('big.bin');
      expect(readFileSync(big, 'utf8')).toBe('tiny\n'); // whole, not truncated
      expect(readdirSync(root).sort()).toEqual(['big.bin']); // no side file left behind
      // Its resident git readers stand in the folder (runner.spawnReader's cwd) and would keep the mount busy.
      await engine.closeShadow();
    } finally {
      await unmountTmpfs(mnt); // the killed resident processes take a moment to exit and let go of the folder
    }
  });
});

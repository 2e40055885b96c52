/**
 * The fast paths (fastFirstSnapshot.ts, warmScope.ts + treeEdit.ts) must give exactly the trees the plain path gives.
 * Each test runs the same workspace through a shadow repository with the fast paths and one without
 * (RETRACE_FAST_PATHS=0) and compares trees, index entries (with their stat data) and the object store.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, git, makeWorkspace } from '../../../../test/helpers';
import { ShadowRepo } from './ShadowRepo';
import { FAST_FIRST_MIN_FILES } from './fastFirstSnapshot';
import type { LineCounts } from './lineCounts';
import { openTemp } from './testSupport';
import { checkScan, recordScan, WARM_MAX_STREAK } from './warmScope';

const indexBytes = (repo: ShadowRepo): Buffer => readFileSync(path.join(repo.gitDir, 'index'));

// Many large temp workspaces: removing them takes long on a busy machine.
afterAll(cleanupTempDirs, 180_000);
afterEach(() => {
  delete process.env.RETRACE_FAST_PATHS;
});

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const inRepo = (repo: ShadowRepo, args: string[]): string =>
  execFileSync('git', [`--git-dir=${repo.gitDir}`, ...args], { env: gitEnv, maxBuffer: 256 << 20 }).toString('utf8');

/** Files of every kind a checkpoint meets; by default more than the fast first path's threshold. */
function bigWorkspace(count = FAST_FIRST_MIN_FILES + 150): string {
  const files: Record<string, string | Buffer | { content: string; mode: number } | { symlink: string }> = {
    'README.md': '# big\n',
    '.gitignore': 'ignored/\n*.log\n',
    'ignored/x.txt': 'ignored\n',
    'run.log': 'ignored log\n',
    'node_modules/dep/index.js': 'dep\n',
    '.env': 'SECRET=1\n',
    'empty.txt': '',
    'bin/tool.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 },
    'blob.bin': Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256)),
    'ünï cödé/naïve.txt': 'unicode\n',
    '"quoted" name.txt': 'q\n',
    'back\\slash.txt': 'b\n',
    'tab\tname.txt': 't\n',
    'new\nline.txt': 'n\n',
    'link-file': { symlink: 'README.md' },
    'link-dir': { symlink: 'src' },
    'link-out': { symlink: '/etc/hostname' },
    // Index v4 stores each path as "drop N bytes of the previous one" + the rest: N > 127 takes 2 varint bytes.
    [`deep/${'x'.repeat(200)}.txt`]: 'long\n',
    'deep2.txt': 'short\n',
    // numstat corner cases: no final newline, CRLF, a NUL past git's 8000-byte binary sniff
    'no-eol.txt': 'a\nb',
    'crlf.txt': 'a\r\nb\r\n',
    'late-nul.txt': `${'x'.repeat(9000)}\0\nend`,
    'early-nul.txt': `ab\0c\n`,
  };
  for (let i = 0; i < count; i++) {
    files[`src/d${i % 37}/e${i % 5}/f${i}.ts`] = `export const v${i} = ${i};\n`.repeat(1 + (i % 13));
  }
  const root = makeWorkspace(files, { userGit: true });
  // A nested repository: its files are captured, its .git never.
  mkdirSync(path.join(root, 'nested/src'), { recursive: true });
  git(path.join(root, 'nested'), ['init', '-q']);
  writeFileSync(path.join(root, 'nested/src/a.txt'), 'nested\n');
  git(path.join(root, 'nested'), ['add', '-A']);
  git(path.join(root, 'nested'), ['commit', '-q', '-m', 'nested']);
  return root;
}

async function pair(root: string): Promise<{ fast: ShadowRepo; plain: ShadowRepo }> {
  return { fast: (await openTemp(root)).repo, plain: (await openTemp(root)).repo };
}

async function snap(repo: ShadowRepo, fastPaths: boolean, hintPaths?: string[]): Promise<string> {
  if (fastPaths) delete process.env.RETRACE_FAST_PATHS;
  else process.env.RETRACE_FAST_PATHS = '0';
  try {
    return (await repo.snapshotTree(hintPaths ? { hintPaths } : {})).tree;
  } finally {
    delete process.env.RETRACE_FAST_PATHS;
  }
}

/**
 * Index entries with everything git keeps about them (mode, blob, stage, stat data). Not `flags`: --debug
 * prints git's in-memory flags, which differ with where a split index keeps the entry.
 */
const indexDebug = (repo: ShadowRepo, root: string): string =>
  execFileSync('git', [`--git-dir=${repo.gitDir}`, `--work-tree=${root}`, 'ls-files', '-s', '--debug'], {
    env: gitEnv,
    maxBuffer: 256 << 20,
  })
    .toString('utf8')
    .replace(/\tflags: [0-9a-f]+/g, '');

const looseObjects = (repo: ShadowRepo): number =>
  Number(/^count: (\d+)/m.exec(inRepo(repo, ['count-objects', '-v']))![1]);

describe('fast first snapshot', () => {
  it('gives the plain path’s tree and index, byte for byte, with the objects in packs', async () => {
    const root = bigWorkspace();
    const { fast, plain } = await pair(root);
    const fastTree = await snap(fast, true);
    const plainTree = await snap(plain, false);
    expect(fastTree).toBe(plainTree);
    // Same entries with the same stat data: the next snapshot sees the same "unchanged" files.
    expect(indexDebug(fast, root)).toBe(indexDebug(plain, root));
    const indexVersion = (repo: ShadowRepo): number => readFileSync(path.join(repo.gitDir, 'index')).readUInt32BE(4);
    expect([indexVersion(fast), indexVersion(plain)]).toEqual([4, 4]);
    // The fast path really ran: the plain path wrote a loose object per file, the fast one (almost) none.
    expect(looseObjects(plain)).toBeGreaterThan(FAST_FIRST_MIN_FILES);
    expect(looseObjects(fast)).toBeLessThan(5);
    inRepo(fast, ['fsck', '--strict', '--no-dangling', '--connectivity-only']);
    inRepo(fast, ['cat-file', '-e', `${fastTree}^{tree}`]);
    // The first checkpoint's stats (from the fast path's own line counts) are git's numstat, file by file.
    const fastCommit = await fast.commit(fastTree, null, 'first');
    const plainCommit = await plain.commit(plainTree, null, 'first');
    // The same commit, unless the clock ticked to the next second between the two (a loaded machine).
    const timeless = (repo: ShadowRepo, c: string): string =>
      inRepo(repo, ['cat-file', 'commit', c]).replace(/> \d+ [+-]\d{4}$/gm, '> TIME');
    expect(timeless(fast, fastCommit)).toBe(timeless(plain, plainCommit));
    // The counts cover every blob of the tree, so git is not asked for a numstat…
    const counts = (fast as unknown as { lineCounts: LineCounts }).lineCounts;
    const listed = inRepo(fast, ['ls-tree', '-r', '-z', fastTree])
      .split('\0')
      .filter(Boolean)
      .map((rec) => {
        const [meta, p] = [rec.slice(0, rec.indexOf('\t')), rec.slice(rec.indexOf('\t') + 1)];
        const [, type, id] = meta.split(' ');
        return { path: p, type: type!, id: id! };
      });
    expect(counts.addedFiles(listed)).not.toBeNull();
    const fastStats = await fast.diffStats(null, fastCommit);
    expect(counts.size).toBe(0); // …and they are dropped once used
    expect(fastStats).toEqual(await plain.diffStats(null, plainCommit));
    expect(fastStats.stats.files).toBeGreaterThan(FAST_FIRST_MIN_FILES);
    // No temporary ref is left behind.
    expect(inRepo(fast, ['for-each-ref', 'refs/retrace/tmp/'])).toBe('');

    // After edits, additions, a deletion and a mode change, the next (plain, incremental) snapshots agree too.
    appendFileSync(path.join(root, 'src/d1/e1/f1.ts'), '// edited\n');
    writeFileSync(path.join(root, 'src/new-file.ts'), 'new\n');
    rmSync(path.join(root, 'src/d2/e2/f2.ts'));
    chmodSync(path.join(root, 'src/d3/e3/f3.ts'), 0o755);
    symlinkSync('empty.txt', path.join(root, 'link-new'));
    const fast2 = await snap(fast, true);
    const plain2 = await snap(plain, false);
    expect(fast2).toBe(plain2);
    expect(fast2).not.toBe(fastTree);
    expect(inRepo(fast, ['ls-tree', '-r', '--name-only', fast2])).toContain('src/new-file.ts');
  });

  it('is not used for small workspaces or a non-empty index', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n', 'b/c.txt': 'c\n' });
    const { fast, plain } = await pair(root);
    expect(await snap(fast, true)).toBe(await snap(plain, false));
    expect(looseObjects(fast)).toBe(looseObjects(plain));
  });

  it('is not used when a split index holds every entry in its shared part', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n', 'b/c.txt': 'c\n' });
    const { repo } = await openTemp(root);
    await snap(repo, true);
    // What git writes when it splits a fresh index: no entries of its own, a link to the shared part.
    rmSync(path.join(repo.gitDir, 'index'));
    execFileSync(
      'git',
      [
        `--git-dir=${repo.gitDir}`,
        `--work-tree=${root}`,
        '-c',
        'core.splitIndex=true',
        'update-index',
        '--add',
        'a.txt',
        'b/c.txt',
      ],
      { env: gitEnv },
    );
    expect(indexBytes(repo).readUInt32BE(8)).toBe(0);
    for (let i = 0; i < FAST_FIRST_MIN_FILES + 10; i++) writeFileSync(path.join(root, `many-${i}.txt`), `${i}\n`);
    const names = inRepo(repo, ['ls-tree', '-r', '--name-only', await snap(repo, true)]).split('\n');
    expect(names).toContain('a.txt'); // a fast "first" snapshot would have written an index of the new files only
    expect(names).toContain('b/c.txt');
    expect(names).toContain(`many-${FAST_FIRST_MIN_FILES + 9}.txt`);
  });
});

describe('warm (hinted) snapshots', () => {
  it('give the same tree as a full scan when the hints name what changed', async () => {
    const root = bigWorkspace(300);
    const { fast, plain } = await pair(root);
    expect(await snap(fast, true)).toBe(await snap(plain, false));

    appendFileSync(path.join(root, 'src/d4/e4/f4.ts'), '// warm edit\n');
    writeFileSync(path.join(root, 'src/d5/brand-new.ts'), 'fresh\n');
    mkdirSync(path.join(root, 'src/new-dir/deeper'), { recursive: true });
    writeFileSync(path.join(root, 'src/new-dir/deeper/x.ts'), 'x\n');
    rmSync(path.join(root, 'src/d6/e1/f6.ts'));
    writeFileSync(path.join(root, 'ignored/new.txt'), 'still ignored\n');
    const hints = [
      'src/d4/e4/f4.ts',
      'src/d5/brand-new.ts',
      'src/new-dir/deeper/x.ts',
      'src/d6/e1/f6.ts',
      'ignored/new.txt',
    ];
    const warm = await snap(fast, true, hints);
    expect(warm).toBe(await snap(plain, false));
    // An empty hint list means "nothing changed": same tree again.
    expect(await snap(fast, true, [])).toBe(warm);
    // A hint naming an unchanged file changes nothing (git makes its own check).
    expect(await snap(fast, true, ['README.md'])).toBe(warm);
  });

  it('build the tree from the last one without the index, judging each hinted path as a full scan does', async () => {
    const root = bigWorkspace(300);
    const fast = (await openTemp(root, 100_000)).repo;
    const plain = (await openTemp(root, 100_000)).repo;
    expect(await snap(fast, true)).toBe(await snap(plain, false));
    const indexBefore = indexBytes(fast);

    symlinkSync('README.md', path.join(root, 'src/new-link'));
    rmSync(path.join(root, 'link-file'));
    symlinkSync('empty.txt', path.join(root, 'link-file')); // retargeted
    chmodSync(path.join(root, 'src/d3/e3/f3.ts'), 0o755);
    writeFileSync(path.join(root, 'nested/src/b.txt'), 'new in the nested repository\n');
    rmSync(path.join(root, 'nested/src/a.txt')); // with b.txt added, the folder stays
    writeFileSync(path.join(root, 'node_modules/dep/new.js'), 'excluded\n');
    writeFileSync(path.join(root, 'fresh.log'), 'ignored by *.log\n');
    writeFileSync(path.join(root, 'huge.txt'), 'x'.repeat(200_000)); // over this pair's size cap
    writeFileSync(path.join(root, 'ünï cödé/neu\tname.txt'), 'unicode, a tab\n');
    rmSync(path.join(root, 'deep2.txt'));
    mkdirSync(path.join(root, 'deep2.txt'));
    writeFileSync(path.join(root, 'deep2.txt/inner.txt'), 'a file became a folder\n');
    rmSync(path.join(root, 'src/d36'), { recursive: true });
    writeFileSync(path.join(root, 'src/d36'), 'a folder became a file\n');
    rmSync(path.join(root, 'bin/tool.sh')); // its folder empties: it leaves the tree
    const hints = [
      'src/new-link',
      'link-file',
      'src/d3/e3/f3.ts',
      'nested/src/b.txt',
      'nested/src/a.txt',
      'node_modules/dep/new.js',
      'fresh.log',
      'huge.txt',
      'ünï cödé/neu\tname.txt',
      'deep2.txt/inner.txt',
      'src/d36',
      'bin/tool.sh',
    ];
    const warm = await fast.snapshotTree({ hintPaths: hints });
    process.env.RETRACE_FAST_PATHS = '0';
    const full = await plain.snapshotTree();
    delete process.env.RETRACE_FAST_PATHS;
    expect(warm.tree).toBe(full.tree);
    expect(warm.notCaptured).toEqual(full.notCaptured.filter((n) => hints.includes(n.path)));
    expect(warm.notCaptured.map((n) => n.path)).toEqual(['huge.txt']);
    // The warm snapshot never touched the index, and wrote objects git accepts.
    expect(indexBytes(fast).equals(indexBefore)).toBe(true);
    inRepo(fast, ['fsck', '--strict', '--no-dangling']);
    // The next full scan starts from that (older) index and still gives the folder as it is.
    expect(await snap(fast, true)).toBe(full.tree);
  });

  it('leave the index behind, and the next full scan catches up even with a change undone meanwhile', async () => {
    const root = bigWorkspace(300);
    const { fast, plain } = await pair(root);
    expect(await snap(fast, true)).toBe(await snap(plain, false));
    const file = path.join(root, 'src/d4/e4/f4.ts');
    const original = readFileSync(file);
    appendFileSync(file, '// warm edit\n');
    writeFileSync(path.join(root, 'src/d5/warm-new.ts'), 'new\n');
    await snap(fast, true, ['src/d4/e4/f4.ts', 'src/d5/warm-new.ts']);
    // Undone behind the hints' back: back to the bytes the index still records, with a new mtime.
    writeFileSync(file, original);
    rmSync(path.join(root, 'src/d5/warm-new.ts'));
    const caughtUp = await snap(fast, true);
    expect(caughtUp).toBe(await snap(plain, false));
    expect(inRepo(fast, ['show', `${caughtUp}:src/d4/e4/f4.ts`])).not.toContain('warm edit');
    // Nothing changed since: a full scan that stages nothing reuses the index's tree (not the warm one).
    expect(await snap(fast, true)).toBe(caughtUp);
  });

  it('are not used right after a restore wrote into the folder', async () => {
    const root = bigWorkspace(300);
    const { fast, plain } = await pair(root);
    const t1 = await snap(fast, true);
    appendFileSync(path.join(root, 'src/d7/e2/f7.ts'), '// later\n');
    const t2 = await snap(fast, true);
    expect(t2).not.toBe(t1);
    // The restore puts f7 back; the next hinted snapshot names another file only.
    await fast.applyPaths(t1, ['src/d7/e2/f7.ts']);
    appendFileSync(path.join(root, 'README.md'), 'hinted\n');
    const after = await snap(fast, true, ['README.md']);
    expect(inRepo(fast, ['show', `${after}:src/d7/e2/f7.ts`])).not.toContain('later');
    expect(after).toBe(await snap(plain, false));
  });

  it('are not used after a restore’s safety snapshot, which forces the next full scan itself (beforeWrites)', async () => {
    const root = bigWorkspace(300);
    const { fast, plain } = await pair(root);
    await snap(fast, true);
    await fast.snapshotTree({ beforeWrites: true });
    expect((await checkScan(fast.gitDir)).state?.lastFullAt).toBe(0);
    // As a restore writes right after it (here without applyPaths, which forces it too): unhinted, then a hint.
    appendFileSync(path.join(root, 'src/d3/e1/f3.ts'), '// written by the restore\n');
    appendFileSync(path.join(root, 'README.md'), 'hinted\n');
    const after = await snap(fast, true, ['README.md']);
    expect(inRepo(fast, ['show', `${after}:src/d3/e1/f3.ts`])).toContain('written by the restore');
    expect(after).toBe(await snap(plain, false));
  });

  it('only looks at the hinted paths, and a periodic full scan catches what hints missed', async () => {
    const root = bigWorkspace(300);
    const { fast, plain } = await pair(root);
    const base = await snap(fast, true);
    await snap(plain, false);

    // Changed behind the hints' back: a warm snapshot does not see it…
    appendFileSync(path.join(root, 'src/d7/e2/f7.ts'), '// unhinted\n');
    appendFileSync(path.join(root, 'src/d8/e3/f8.ts'), '// hinted\n');
    const warm = await snap(fast, true, ['src/d8/e3/f8.ts']);
    expect(warm).not.toBe(base);
    const files = (t: string): string => inRepo(fast, ['show', `${t}:src/d7/e2/f7.ts`]);
    expect(files(warm)).not.toContain('unhinted');
    // …a snapshot without hints (what restores' safety checkpoints take) does…
    const full = await snap(fast, true);
    expect(full).toBe(await snap(plain, false));
    expect(files(full)).toContain('unhinted');

    // …and so does a hinted one once the warm streak is used up.
    appendFileSync(path.join(root, 'src/d9/e4/f9.ts'), '// unhinted again\n');
    for (let i = 0; i < WARM_MAX_STREAK - 1; i++) {
      const check = await checkScan(fast.gitDir);
      await recordScan(fast.gitDir, check, true, Date.now(), check.state!.tree);
    }
    await snap(fast, true, ['README.md']); // the last warm one of the streak
    const verified = await snap(fast, true, ['README.md']);
    expect(inRepo(fast, ['show', `${verified}:src/d9/e4/f9.ts`])).toContain('unhinted again');
    expect(verified).toBe(await snap(plain, false));
  });

  it('stay warm in a new process (each hook call is one), and a changed .retraceignore forces a full scan', async () => {
    const root = bigWorkspace(300);
    const { ws, repo: first } = await openTemp(root);
    await snap(first, true);
    // A new ShadowRepo is what a new hook process gets: its first snapshot still may be warm.
    const second = await ShadowRepo.open(ws);
    appendFileSync(path.join(root, 'src/d10/e0/f10.ts'), '// unhinted\n');
    appendFileSync(path.join(root, 'src/d11/e1/f11.ts'), '// hinted\n');
    const warm = await snap(second, true, ['src/d11/e1/f11.ts']);
    expect(inRepo(second, ['show', `${warm}:src/d11/e1/f11.ts`])).toContain('hinted');
    expect(inRepo(second, ['show', `${warm}:src/d10/e0/f10.ts`])).not.toContain('unhinted');
    // New exclude rules (.retraceignore is read on every snapshot): the next hinted snapshot is a full one.
    writeFileSync(path.join(root, '.retraceignore'), 'src/d12/\n');
    const third = await ShadowRepo.open(ws);
    const full = await snap(third, true, ['src/d11/e1/f11.ts']);
    expect(inRepo(third, ['show', `${full}:src/d10/e0/f10.ts`])).toContain('unhinted');
    expect(inRepo(third, ['ls-tree', '-r', '--name-only', full])).not.toContain('src/d12/');
  });

  it('a new process skips the ignore sweep only while rules and index are as the last snapshot left them', async () => {
    const root = bigWorkspace(300);
    const { ws, repo } = await openTemp(root);
    const t1 = await snap(repo, true);
    expect(inRepo(repo, ['ls-tree', '-r', '--name-only', t1])).toContain('src/d1/e1/f1.ts');
    // A snapshot killed after staging a new .gitignore but before its sweep: the index holds the new rules
    // (so the next scan sees no .gitignore change) and still holds the file they exclude.
    writeFileSync(path.join(root, '.gitignore'), 'ignored/\n*.log\nsrc/d1/\n');
    execFileSync('git', [`--git-dir=${repo.gitDir}`, `--work-tree=${root}`, 'update-index', '--add', '.gitignore'], {
      env: gitEnv,
    });
    const next = await ShadowRepo.open(ws);
    const t2 = await snap(next, true);
    expect(inRepo(next, ['ls-tree', '-r', '--name-only', t2])).not.toContain('src/d1/');
  });

  it('falls back to a full scan when a hint touches the ignore rules, is not a plain path or names a folder', async () => {
    const root = bigWorkspace(300);
    const { fast, plain } = await pair(root);
    await snap(fast, true);
    await snap(plain, false);
    // Un-ignoring a folder brings its files in, though no hint names them.
    writeFileSync(path.join(root, '.gitignore'), '*.log\n');
    const t = await snap(fast, true, ['.gitignore']);
    expect(inRepo(fast, ['ls-tree', '-r', '--name-only', t])).toContain('ignored/x.txt');
    expect(t).toBe(await snap(plain, false));

    appendFileSync(path.join(root, 'README.md'), 'more\n');
    expect(await snap(fast, true, ['../outside.txt'])).toBe(await snap(plain, false));

    // A folder named as a hint: what is inside it is found though no hint names it.
    writeFileSync(path.join(root, 'src/d8/unhinted-but-inside.ts'), 'x\n');
    const inside = await snap(fast, true, ['src/d8']);
    expect(inRepo(fast, ['ls-tree', '-r', '--name-only', inside])).toContain('src/d8/unhinted-but-inside.ts');
    expect(inside).toBe(await snap(plain, false));
  });

  it('resolve a hint through a symlinked folder to the link and the real file, as a full scan captures them', async () => {
    const root = bigWorkspace(100);
    mkdirSync(path.join(root, 'v2'));
    writeFileSync(path.join(root, 'v2/x.ts'), 'v2\n');
    symlinkSync('v2', path.join(root, 'current'));
    const { fast, plain } = await pair(root);
    await snap(fast, true);
    await snap(plain, false);

    // The agent edits through the link (`current/x.ts`) and through one that leads out of the folder.
    appendFileSync(path.join(root, 'current/x.ts'), '// through the link\n');
    const warm = await snap(fast, true, ['current/x.ts', 'link-out/elsewhere.txt']);
    expect((await checkScan(fast.gitDir)).state?.warmSinceFull).toBe(1); // really the warm path
    const entries = inRepo(fast, ['ls-tree', '-r', warm]);
    expect(entries).toMatch(/^120000 blob \w+\tcurrent$/m);
    expect(entries).toMatch(/^120000 blob \w+\tlink-out$/m);
    expect(inRepo(fast, ['show', `${warm}:v2/x.ts`])).toContain('through the link');
    expect(warm).toBe(await snap(plain, false));

    // The file deleted through the link leaves the tree at its real path; the link stays.
    rmSync(path.join(root, 'current/x.ts'));
    const gone = await snap(fast, true, ['current/x.ts']);
    expect((await checkScan(fast.gitDir)).state?.warmSinceFull).toBe(2);
    expect(inRepo(fast, ['ls-tree', '-r', '--name-only', gone]).split('\n')).toContain('current');
    expect(gone).toBe(await snap(plain, false));
  });

  it('keep a file that a hint names as a folder (a hinted path whose parent is a file)', async () => {
    const root = bigWorkspace(100);
    const { fast, plain } = await pair(root);
    await snap(fast, true);
    await snap(plain, false);
    appendFileSync(path.join(root, 'README.md'), 'edited\n');
    const warm = await snap(fast, true, ['README.md/x.ts', 'deep2.txt/a/b', 'link-file/x.ts']);
    expect((await checkScan(fast.gitDir)).state?.warmSinceFull).toBe(1);
    expect(inRepo(fast, ['show', `${warm}:README.md`])).toContain('edited');
    expect(inRepo(fast, ['ls-tree', '-r', '--name-only', warm]).split('\n')).toContain('deep2.txt');
    expect(warm).toBe(await snap(plain, false));
    // A hint below a folder that is gone now: the folder leaves the tree with everything in it.
    rmSync(path.join(root, 'src/d9'), { recursive: true });
    const vanished = await snap(fast, true, ['src/d9/e0/f9.ts/deeper']);
    expect(inRepo(fast, ['ls-tree', '-r', '--name-only', vanished])).not.toContain('src/d9/');
    expect(vanished).toBe(await snap(plain, false));
  });
});

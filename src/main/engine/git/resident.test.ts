/**
 * The resident git processes (residentReader.ts, residentDiffTree.ts) and the tree walk (treeWalk.ts) must
 * answer exactly what one git process per call answers: compared here with git itself on real repositories.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, prng, tempDir, testSeed } from '../../../../test/helpers';
import { diffTreeFiles, diffTreeRaw } from './diffTree';
import { diffTreesInProcess, withinPaths } from './treeDiff';
import { gitEnv } from './env';
import { FILE_CHANGES, RAW_CHANGES, ResidentDiffTree } from './residentDiffTree';
import { ObjectReader } from './objectReader';
import { ResidentReader } from './residentReader';
import { GitRunner } from './runner';
import { entryAtPath, peelTree } from './treeWalk';

afterAll(cleanupTempDirs);

interface Repo {
  root: string;
  git: GitRunner;
  run(args: string[], input?: string): string;
}

function makeRepo(): Repo {
  const root = tempDir('retrace-resident-');
  const hooks = tempDir('retrace-hooks-');
  const run = (args: string[], input?: string): string =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], {
      cwd: root,
      env: gitEnv(),
      input,
      maxBuffer: 64 << 20,
    }).toString('utf8');
  run(['init', '-q']);
  return { root, git: new GitRunner({ gitDir: path.join(root, '.git'), workTree: root, hooksDir: hooks }), run };
}

type Spec = Record<string, string | Buffer | { symlink: string }>;

/** Replace the folder's files with `spec` and return its tree. */
function treeOf(repo: Repo, spec: Spec): string {
  for (const name of readdirSync(repo.root))
    if (name !== '.git') rmSync(path.join(repo.root, name), { recursive: true, force: true });
  for (const [rel, content] of Object.entries(spec)) {
    const full = path.join(repo.root, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    if (typeof content === 'object' && 'symlink' in content) symlinkSync(content.symlink, full);
    else writeFileSync(full, content);
  }
  repo.run(['add', '-A']);
  return repo.run(['write-tree']).trim();
}

const NAMES = [
  'a.txt',
  'with space.txt',
  'new\nline.txt',
  'ünïcödé/naïve.md',
  'tab\tname',
  'deep/er/still/file.ts',
  'deep/er/other.ts',
  'bin.dat',
  'link',
  'x/y',
  'x/z z',
  '4b825dc642cb6eb9a060e54bf8d69288fbee4904 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n',
  ':colon',
  '1\t2\tlooks-like-numstat',
];

function randomSpec(r: ReturnType<typeof prng>, base: Spec | null): Spec {
  const spec: Spec = {};
  for (const name of NAMES) {
    const had = base?.[name];
    const roll = r.next();
    if (had !== undefined && roll < 0.6)
      spec[name] = had; // unchanged
    else if (had !== undefined && roll < 0.7)
      continue; // deleted
    else if (had !== undefined && roll < 0.8 && typeof had === 'string') {
      spec[`moved/${name.replace(/\//g, '_')}`] = had; // renamed (same content)
    } else if (roll < 0.9) {
      const kind = r.int(0, 3);
      spec[name] =
        kind === 0
          ? { symlink: 'a.txt' }
          : kind === 1
            ? Buffer.from(Array.from({ length: 300 }, (_, i) => (i * r.int(1, 250)) % 256))
            : `line ${r.int(0, 5)}\n`.repeat(r.int(1, 30)) + (kind === 2 ? 'no newline' : '');
    }
  }
  // A "folder" path and a file of the same name never coexist.
  if (Object.keys(spec).some((k) => k.startsWith('x/'))) delete spec['x'];
  return spec;
}

describe('ResidentDiffTree', () => {
  it.skipIf(!ResidentDiffTree.available())(
    'answers every random tree pair exactly as one diff-tree process per pair does',
    async () => {
      const repo = makeRepo();
      const r = prng(testSeed(1515));
      const trees: string[] = [treeOf(repo, {})];
      let spec: Spec | null = null;
      for (let i = 0; i < 12; i++) {
        spec = randomSpec(r, spec);
        trees.push(treeOf(repo, spec));
      }
      const resident = new ResidentDiffTree(repo.git, FILE_CHANGES);
      try {
        // Pipelined: several requests in flight at once must each get their own answer.
        const pairs = Array.from({ length: 30 }, () => [r.pick(trees), r.pick(trees)] as const);
        const answers = await Promise.all(pairs.map(([a, b]) => resident.diff(a, b)));
        for (let i = 0; i < pairs.length; i++) {
          const [a, b] = pairs[i]!;
          expect(answers[i], `${a} ${b}`).toEqual(await diffTreeFiles(repo.git, a, b));
        }
        // The pairs above did cover renames, binary files, type changes and odd names.
        const all = answers.flat();
        expect(all.some((f) => f.status === 'renamed')).toBe(true);
        expect(all.some((f) => f.status === 'type-changed')).toBe(true);
        expect(all.some((f) => f.binary)).toBe(true);
        expect(all.some((f) => f.path.includes('\n'))).toBe(true);
      } finally {
        resident.close();
      }
    },
  );

  it.skipIf(!ResidentDiffTree.available())('replaces a killed process and answers again', async () => {
    const repo = makeRepo();
    const a = treeOf(repo, { 'a.txt': 'one\n' });
    const b = treeOf(repo, { 'a.txt': 'one\ntwo\n', 'b.txt': 'b\n' });
    const resident = new ResidentDiffTree(repo.git, FILE_CHANGES);
    try {
      const expected = await diffTreeFiles(repo.git, a, b);
      expect(await resident.diff(a, b)).toEqual(expected);
      const first = resident.process!;
      const exited = new Promise((r) => first.once('close', r));
      first.kill('SIGKILL');
      await exited;
      expect(await resident.diff(a, b)).toEqual(expected);
      expect(resident.process).not.toBe(first);
      // Killed with a request in flight: that request fails (its caller falls back to a process of its own)
      // unless its answer was already on the way; either way the next request once the death is seen answers.
      // (A request sent between the kill and its 'close' event goes to the dying process and fails like the
      // in-flight one: its caller's fallback covers it, so this waits for the event rather than racing it.)
      const inFlight = resident.diff(b, a).then(
        (files) => files,
        (e: Error) => e,
      );
      const second = resident.process!;
      const secondExited = new Promise((r) => second.once('close', r));
      second.kill('SIGKILL');
      const settled = await inFlight;
      if (settled instanceof Error) expect(settled.message).toMatch(/diff-tree/);
      else expect(settled).toEqual(await diffTreeFiles(repo.git, b, a));
      await secondExited;
      expect(await resident.diff(a, b)).toEqual(expected);
      expect(resident.process).not.toBe(second);
    } finally {
      resident.close();
    }
  });
});

describe('ResidentReader and the tree walk', () => {
  it('reads what git reads, including objects written after it started (loose and in a new pack)', async () => {
    const repo = makeRepo();
    const tree = treeOf(repo, {
      'a.txt': 'a\n',
      'd/e/f.txt': 'f\n',
      'with space/ü.md': 'u\n',
      link: { symlink: 'a.txt' },
    });
    const commit = repo.run(['commit-tree', tree, '-m', 'one']).trim();
    const reader = new ResidentReader(repo.git);
    try {
      expect(await reader.type(commit)).toBe('commit');
      expect(await peelTree(reader, commit)).toBe(repo.run(['rev-parse', `${commit}^{tree}`]).trim());
      expect(await peelTree(reader, tree)).toBe(tree);
      expect(await reader.type('0'.repeat(40))).toBeNull();
      // Written after the reader started: a loose blob, then a pack holding a new blob (its loose copy removed).
      const loose = repo.run(['hash-object', '-w', '--stdin'], 'written later\n').trim();
      expect((await reader.read(loose))?.body.toString()).toBe('written later\n');
      const packed = repo.run(['hash-object', '-w', '--stdin'], 'packed later\n').trim();
      repo.run([
        'update-ref',
        'refs/keep',
        repo.run(['commit-tree', treeOf(repo, { p: 'packed later\n' }), '-m', 'p']).trim(),
      ]);
      repo.run(['repack', '-a', '-d', '-q']);
      repo.run(['prune-packed']);
      expect(existsSync(path.join(repo.root, '.git', 'objects', packed.slice(0, 2), packed.slice(2)))).toBe(false);
      expect((await reader.read(packed))?.body.toString()).toBe('packed later\n');
      // A killed process is replaced by the next read.
      const first = reader.process!;
      first.kill();
      await new Promise((r) => setTimeout(r, 100));
      expect((await reader.read(loose))?.body.toString()).toBe('written later\n');
      expect(reader.process).not.toBe(first);
    } finally {
      reader.close();
    }
  });

  it('tells sizes and types as cat-file --batch-check does, and reads many at once even when killed under them', async () => {
    const repo = makeRepo();
    const rnd = prng(testSeed(1516));
    const spec: Spec = { empty: '', 'big.bin': Buffer.alloc(3 << 20, 7), link: { symlink: 'empty' } };
    for (let i = 0; i < 40; i++) spec[`d${i % 4}/f${i}.txt`] = 'x'.repeat(rnd.int(0, 5000)) + `\n${i}`;
    const tree = treeOf(repo, spec);
    const ids = repo.run(['ls-tree', '-r', '-t', '-z', '--format=%(objectname)', tree]).split('\0').filter(Boolean);
    ids.push(tree, '0'.repeat(40));
    const expected = repo
      .run(['cat-file', '--batch-check'], ids.join('\n') + '\n')
      .trim()
      .split('\n')
      .map((l) => (l.endsWith(' missing') ? null : { type: l.split(' ')[1], size: Number(l.split(' ')[2]) }));
    const reader = new ResidentReader(repo.git);
    try {
      expect(await Promise.all(ids.map((id) => reader.info(id)))).toEqual(expected);
      // Contents asked all at once; the process killed with answers in flight: every read is answered again.
      const blobs = ids.filter((_, i) => expected[i]?.type === 'blob');
      const want = blobs.map((id) => repo.run(['cat-file', 'blob', id]));
      await reader.read(blobs[0]!);
      const first = reader.process!;
      const reads = Promise.all(blobs.map((id) => reader.read(id)));
      first.kill();
      expect((await reads).map((o) => o?.body.toString('utf8'))).toEqual(want);
    } finally {
      reader.close();
    }
  });

  it('sends the requests of one turn in one write, and answers those asked right before a close', async () => {
    const repo = makeRepo();
    const spec: Spec = {};
    for (let i = 0; i < 60; i++) spec[`f${i}.txt`] = `${i}\n`.repeat(i + 1);
    const tree = treeOf(repo, spec);
    const ids = repo.run(['ls-tree', '-z', '--format=%(objectname)', tree]).split('\0').filter(Boolean);
    const want = ids.map((id) => Number(repo.run(['cat-file', '-s', id]).trim()));
    const reader = ObjectReader.open(repo.git, { check: true });
    // Counted, still written: each write to the pipe wakes git, ~100 of them were most of a restore's pipe traffic.
    const stdin = (reader as unknown as { child: { stdin: { write: (...a: unknown[]) => boolean } } }).child.stdin;
    const write = stdin.write.bind(stdin);
    let writes = 0;
    stdin.write = (...a: unknown[]) => (writes++, write(...a));
    expect((await Promise.all(ids.map((id) => reader.info(id)))).map((o) => o?.size)).toEqual(want);
    expect(writes).toBe(1);
    const last = Promise.all(ids.slice(0, 5).map((id) => reader.info(id)));
    reader.close();
    expect((await last).map((o) => o?.size)).toEqual(want.slice(0, 5));
    expect(writes).toBe(2);
  });

  it('diffs trees in process, and through a resident diff-tree, exactly as diff-tree -r --no-renames does', async () => {
    const repo = makeRepo();
    const r = prng(testSeed(1517));
    // Names whose tree order differs from plain order ('a-b' < 'a.c' < 'a/'), a file and a folder of one name
    // ('x' and 'x/y', 'deep' and 'deep/er/…'), every mode, and names with odd bytes.
    const pool = ['a', 'a-b', 'a.c', 'a/b', 'a/c/d', 'x', 'x/y', 'x/z z', 'deep', 'deep/er/still/f.ts', 'deep/er/o'];
    pool.push('new\nline', 'ü/ñ.md', 'tab\tname', 'sub', 'z');
    const modes = ['100644', '100755', '120000', '160000'];
    const blobs = Array.from({ length: 4 }, (_, i) => repo.run(['hash-object', '-w', '--stdin'], `blob ${i}\n`).trim());
    const commit = repo.run(['commit-tree', repo.run(['write-tree']).trim(), '-m', 'c']).trim();
    const index = path.join(tempDir('retrace-index-'), 'index');
    const env = { ...gitEnv(), GIT_INDEX_FILE: index };
    const git = (args: string[], input?: string): string =>
      execFileSync('git', args, { cwd: repo.root, env, input }).toString('utf8');
    const randomTree = (): string => {
      rmSync(index, { force: true });
      const taken: string[] = [];
      const order = [...pool];
      for (let i = order.length - 1; i > 0; i--) {
        const j = r.int(0, i);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      for (const p of order) {
        if (r.next() < 0.35) continue;
        // A path and a path inside it cannot both be files of one tree.
        if (taken.some((t) => t.startsWith(p + '/') || p.startsWith(t + '/'))) continue;
        taken.push(p);
      }
      const lines = taken.map((p) => {
        const mode = r.pick(modes);
        return `${mode} ${mode === '160000' ? commit : r.pick(blobs)}\t${p}`;
      });
      git(['update-index', '--add', '-z', '--index-info'], lines.map((l) => l + '\0').join(''));
      return git(['write-tree']).trim();
    };
    const trees = Array.from({ length: 14 }, randomTree);
    const reader = new ResidentReader(repo.git);
    const raw = ResidentDiffTree.available() ? new ResidentDiffTree(repo.git, RAW_CHANGES) : null;
    try {
      let changes = 0;
      const whole: Promise<void>[] = [];
      for (let i = 0; i < 40; i++) {
        const [a, b] = [r.pick(trees), r.pick(trees)];
        const paths = i % 2 === 0 ? undefined : pool.filter(() => r.next() < 0.3).concat(['absent', 'deep/er']);
        const want = await diffTreeRaw(repo.git, a, b, paths ? { paths } : {});
        expect(await diffTreesInProcess(reader, a, b, paths), `${a} ${b} ${paths?.join(',')}`).toEqual(want);
        // Through the resident process, all in flight at once (each its own answer), kept to the paths.
        const keep = paths ? withinPaths(paths) : () => true;
        if (raw) whole.push(raw.diff(a, b).then((got) => void expect(got.filter((c) => keep(c.path))).toEqual(want)));
        changes += want.length;
      }
      await Promise.all(whole);
      expect(changes, 'the pairs differ at all').toBeGreaterThan(40);
    } finally {
      reader.close();
      raw?.close();
    }
  });

  it('finds each path of a tree as ls-tree does (files, folders, links, absent and odd paths)', async () => {
    const repo = makeRepo();
    const tree = treeOf(repo, {
      'a.txt': 'a\n',
      'd/e/f.txt': 'f\n',
      'd/e g/h': 'h\n',
      'new\nline': 'n\n',
      'ü/ñ.md': 'u\n',
      link: { symlink: 'd' },
      'x.y/z': 'z\n',
    });
    const reader = new ResidentReader(repo.git);
    try {
      const queries = ['a.txt', 'd', 'd/e', 'd/e/f.txt', 'd/e g/h', 'new\nline', 'ü/ñ.md', 'link', 'link/e', 'x.y/z'];
      queries.push('missing', 'd/missing', 'a.txt/x', 'd/e/f.txt/deeper', 'x.y');
      for (const q of queries) {
        const out = repo.run(['ls-tree', '-z', '--full-tree', tree, '--', q]);
        const rec = out.split('\0').find((r) => r.slice(r.indexOf('\t') + 1) === q);
        const expected = rec
          ? (([mode, type, id]) => ({ mode, type, id }))(rec.slice(0, rec.indexOf('\t')).split(' '))
          : null;
        expect(await entryAtPath(reader, tree, q), q).toEqual(expected);
      }
    } finally {
      reader.close();
    }
  });

  it('lets a Node process exit while its resident processes are idle', () => {
    const repo = makeRepo();
    const tree = treeOf(repo, { 'a.txt': 'a\n' });
    const script = `
      import { GitRunner } from ${JSON.stringify(path.join(__dirname, 'runner.ts'))};
      import { ResidentReader } from ${JSON.stringify(path.join(__dirname, 'residentReader.ts'))};
      import { FILE_CHANGES, ResidentDiffTree } from ${JSON.stringify(path.join(__dirname, 'residentDiffTree.ts'))};
      const git = new GitRunner(${JSON.stringify({ gitDir: path.join(repo.root, '.git'), workTree: repo.root, hooksDir: repo.root })});
      const reader = new ResidentReader(git);
      const t = await reader.read(${JSON.stringify(tree)});
      const d = ResidentDiffTree.available() ? await new ResidentDiffTree(git, FILE_CHANGES).diff(${JSON.stringify(tree)}, '4b825dc642cb6eb9a060e54bf8d69288fbee4904') : [];
      console.log(t.type, d.length);
    `;
    const file = path.join(tempDir('retrace-exit-'), 'idle.mts');
    writeFileSync(file, script);
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], { timeout: 20_000, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(ResidentDiffTree.available() ? 'tree 1' : 'tree 0');
    expect(r.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000); // not the reader's 30 s idle timer
  });
});

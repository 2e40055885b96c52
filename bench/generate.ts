/**
 * Deterministic benchmark workspaces: N files of a realistic mix — mostly small text files in nested folders,
 * a few large files, some binary, a nested git repository, an ignored node_modules (named in .gitignore),
 * a few ignored logs, symlinks and executables — from a seed. Trees live under os.tmpdir()/retrace-bench,
 * named by a hash of their spec, and are reused while the spec matches. Never inside the repository.
 *
 * Run directly: `npx tsx bench/generate.ts --files 10000 [--seed 42] [--quick]` prints the tree's path.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isolatedGitEnv } from './proc';
import { Prng, deriveSeed } from './prng';

/** Bump when the layout changes, so cached trees are regenerated. */
const GENERATOR_VERSION = 3;

export interface TreeSpec {
  files: number;
  seed: number;
  /** Multiplies every file size: 1 for the full bench (~500 MB at 100k files), less for --quick. */
  sizeScale: number;
}

export interface TreeManifest {
  spec: TreeSpec;
  version: number;
  /** Regular files and symlinks written, excluding the nested repository's .git internals. */
  fileCount: number;
  totalBytes: number;
  /** Captured text files (outside node_modules and the nested repo): the pool that edits draw from. */
  editable: string[];
  nestedRepo: string;
  complete: true;
}

export interface GeneratedTree {
  /** The workspace folder. */
  root: string;
  manifest: TreeManifest;
}

export const BENCH_HOME = path.join(os.tmpdir(), 'retrace-bench');

const WORDS = [
  'alpha',
  'buffer',
  'cache',
  'delta',
  'event',
  'frame',
  'graph',
  'handle',
  'index',
  'join',
  'kernel',
  'layer',
  'model',
  'node',
  'option',
  'parser',
  'query',
  'route',
  'store',
  'token',
  'util',
  'view',
  'worker',
  'yield',
  'zone',
  'config',
  'client',
  'server',
  'session',
  'render',
  'schema',
  'stream',
];
const TEXT_EXTS = ['.ts', '.ts', '.ts', '.tsx', '.js', '.json', '.md', '.css', '.py', '.txt'];
const BINARY_EXTS = ['.png', '.jpg', '.woff2', '.bin', '.sqlite'];

/** Git with no user or system config, a fixed identity and fixed dates: the nested repo is reproducible. */
function gitEnv(): NodeJS.ProcessEnv {
  return { ...isolatedGitEnv(), GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' };
}

/** A few MB of code-like lines; files take slices of it so content is text-like but varies per file. */
function makeCorpus(rng: Prng, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const indent = '  '.repeat(rng.int(0, 3));
    const a = rng.pick(WORDS);
    const b = rng.pick(WORDS);
    const n = rng.int(0, 99999);
    let line: string;
    switch (rng.int(0, 5)) {
      case 0:
        line = `${indent}export function ${a}${b[0]!.toUpperCase()}${b.slice(1)}(${a}: number): number {`;
        break;
      case 1:
        line = `${indent}const ${a}_${n} = await ${b}.${a}(${n}, '${b}-${a}');`;
        break;
      case 2:
        line = `${indent}// ${a} ${b} keeps the ${rng.pick(WORDS)} ${rng.pick(WORDS)} in step with ${n}`;
        break;
      case 3:
        line = `${indent}if (${a}.${b} > ${n}) return ${rng.pick(WORDS)}[${rng.int(0, 9)}];`;
        break;
      case 4:
        line = `${indent}}`;
        break;
      default:
        line = `${indent}${a}.${b} = { id: ${n}, name: '${rng.pick(WORDS)}', ok: ${n % 2 === 0} };`;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

function specHash(spec: TreeSpec): string {
  return createHash('sha256')
    .update(JSON.stringify({ v: GENERATOR_VERSION, ...spec }))
    .digest('hex')
    .slice(0, 16);
}

interface PlannedFile {
  rel: string;
  write: () => Buffer | string;
  mode?: number;
}

/** Lays out the tree: names, sizes and content generators, all from the seed. */
function plan(spec: TreeSpec): { files: PlannedFile[]; symlinks: [string, string][]; editable: string[] } {
  const rng = new Prng(spec.seed);
  const corpus = makeCorpus(new Prng(deriveSeed(spec.seed, 'corpus')), 4 << 20);
  const scale = (n: number): number => Math.max(16, Math.round(n * spec.sizeScale));
  const N = spec.files;
  const nodeModules = Math.round(N * 0.03);
  const nested = Math.max(20, Math.round(N * 0.01));
  const binaries = Math.max(5, Math.round(N * 0.01));
  const large = Math.max(2, Math.round(N / 10_000));
  const ignoredLogs = 5;
  const scripts = 5;
  const symlinkCount = 3;
  const fixed = 2; // .gitignore, README.md
  const text = N - nodeModules - nested - binaries - large - ignoredLogs - scripts - symlinkCount - fixed;
  if (text < 100) throw new Error(`--files ${N} is too small for the mix; use at least 1000`);

  const files: PlannedFile[] = [];
  const editable: string[] = [];
  const textSlice = (header: string, size: number): string => {
    const start = rng.int(0, corpus.length - size - 1);
    return header + corpus.slice(Math.max(0, start), start + size);
  };

  files.push({ rel: '.gitignore', write: () => 'node_modules/\ndist/\n*.log\n' });
  files.push({ rel: 'README.md', write: () => `# bench workspace\n\n${N} files, seed ${spec.seed}.\n` });

  // Source: an 8-ary tree of folders, about ten files each, four or five levels deep at 100k files.
  const dirCount = Math.ceil(text / 10);
  const dirs: string[] = ['src'];
  for (let i = 1; i < dirCount; i++) dirs.push(`${dirs[(i - 1) >> 3]}/${rng.pick(WORDS)}-${i}`);
  for (let i = 0; i < text; i++) {
    const rel = `${dirs[i % dirCount]}/${rng.pick(WORDS)}-${i}${rng.pick(TEXT_EXTS)}`;
    const size = scale(rng.logInt(200, 20_000));
    const header = `// ${rel} #${rng.u32().toString(16)}\n`;
    const content = textSlice(header, size);
    files.push({ rel, write: () => content });
    editable.push(rel);
  }
  for (let i = 0; i < binaries; i++) {
    const rel = `assets/${rng.pick(WORDS)}/${i}${rng.pick(BINARY_EXTS)}`;
    const size = scale(rng.logInt(4096, 131_072));
    const seed = rng.u32();
    files.push({ rel, write: () => new Prng(seed).bytes(size) });
  }
  for (let i = 0; i < large; i++) {
    const size = scale(rng.int(3 << 20, 6 << 20));
    const seed = rng.u32();
    if (i % 2 === 0) {
      files.push({ rel: `assets/large/blob-${i}.bin`, write: () => new Prng(seed).bytes(size) });
    } else {
      const pieces: string[] = [];
      const r = new Prng(seed);
      for (let got = 0; got < size; got += 64 << 10) {
        const start = r.int(0, corpus.length - (64 << 10) - 1);
        pieces.push(corpus.slice(start, start + (64 << 10)));
      }
      const content = pieces.join('').slice(0, size);
      files.push({ rel: `data/large-${i}.sql`, write: () => content });
    }
  }
  for (let i = 0; i < nodeModules; i++) {
    const rel = `node_modules/${rng.pick(WORDS)}-pkg-${i % 40}/lib/${rng.pick(WORDS)}-${i}.js`;
    const content = textSlice(`// ${rel}\n`, scale(rng.logInt(100, 4000)));
    files.push({ rel, write: () => content });
  }
  for (let i = 0; i < nested; i++) {
    const rel = `packages/nested-lib/src/${rng.pick(WORDS)}-${i}${rng.pick(TEXT_EXTS)}`;
    const content = textSlice(`// ${rel}\n`, scale(rng.logInt(200, 8000)));
    files.push({ rel, write: () => content });
  }
  for (let i = 0; i < ignoredLogs; i++) {
    const content = textSlice(`log ${i}\n`, scale(2000));
    files.push({ rel: `logs/run-${i}.log`, write: () => content });
  }
  for (let i = 0; i < scripts; i++) {
    const content = `#!/bin/sh\n# script ${i}\necho ${rng.pick(WORDS)}\n`;
    files.push({ rel: `scripts/task-${i}.sh`, write: () => content, mode: 0o755 });
  }
  const symlinks: [string, string][] = [
    ['link-to-readme.md', 'README.md'],
    ['scripts/current', 'task-0.sh'],
    ['src/link-to-src-dir', '.'],
  ];
  return { files, symlinks, editable };
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

/** Returns the tree for `spec`, generating it if no complete copy is cached. */
export async function generateTree(spec: TreeSpec, log: (line: string) => void = () => {}): Promise<GeneratedTree> {
  const home = path.join(BENCH_HOME, 'trees', `${spec.files}-${specHash(spec)}`);
  const root = path.join(home, 'tree');
  const manifestPath = path.join(home, 'manifest.json');
  if (existsSync(manifestPath)) {
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as TreeManifest;
    if (manifest.complete && manifest.version === GENERATOR_VERSION) return { root, manifest };
  }
  await rm(home, { recursive: true, force: true });
  const started = Date.now();
  log(`generating ${spec.files} files (seed ${spec.seed}, size ×${spec.sizeScale}) in ${root}`);
  const { files, symlinks, editable } = plan(spec);
  const dirs = new Set<string>();
  for (const f of files) dirs.add(path.dirname(path.join(root, f.rel)));
  for (const [link] of symlinks) dirs.add(path.dirname(path.join(root, link)));
  for (const d of [...dirs].sort()) await mkdir(d, { recursive: true });
  let totalBytes = 0;
  await inBatches(files, 64, async (f) => {
    const content = f.write();
    totalBytes += typeof content === 'string' ? Buffer.byteLength(content) : content.length;
    const abs = path.join(root, f.rel);
    await writeFile(abs, content);
    if (f.mode !== undefined) await chmod(abs, f.mode);
  });
  for (const [link, target] of symlinks) await symlink(target, path.join(root, link));

  // The nested repository is a real one with a commit, so tools that trip over nested .git dirs meet one.
  const nestedRepo = 'packages/nested-lib';
  const git = (cwd: string, ...args: string[]): void => {
    execFileSync('git', args, { cwd, env: gitEnv(), stdio: 'ignore' });
  };
  git(path.join(root, nestedRepo), 'init', '-q', '-b', 'main');
  git(path.join(root, nestedRepo), 'add', '-A');
  git(path.join(root, nestedRepo), 'commit', '-q', '-m', 'nested library');
  // The workspace itself is a git repository too (no commit: its .git must simply be left alone).
  git(root, 'init', '-q', '-b', 'main');

  const manifest: TreeManifest = {
    spec,
    version: GENERATOR_VERSION,
    fileCount: files.length + symlinks.length,
    totalBytes,
    editable,
    nestedRepo,
    complete: true,
  };
  await writeFile(manifestPath, JSON.stringify(manifest));
  log(`generated ${manifest.fileCount} files, ${(totalBytes / 1e6).toFixed(0)} MB in ${Date.now() - started} ms`);
  return { root, manifest };
}

/**
 * Applies edit number `k` to a copy of the tree: appends one line to each of `count` distinct editable files.
 * The same (seed, k) gives the same paths and bytes on every copy, so every method sees identical changes.
 */
export async function applyEdits(root: string, manifest: TreeManifest, k: number, count = 10): Promise<string[]> {
  const rng = new Prng(deriveSeed(manifest.spec.seed, `edit-${k}`));
  const chosen = new Set<string>();
  while (chosen.size < Math.min(count, manifest.editable.length)) chosen.add(rng.pick(manifest.editable));
  const paths = [...chosen];
  for (const rel of paths) await appendFile(path.join(root, rel), `// edit ${k} #${rng.u32().toString(16)}\n`);
  return paths;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const files = Number(arg('--files') ?? 1000);
  const seed = Number(arg('--seed') ?? 42);
  const sizeScale = process.argv.includes('--quick') ? 0.25 : 1;
  const tree = await generateTree({ files, seed, sizeScale }, (l) => process.stderr.write(l + '\n'));
  process.stdout.write(tree.root + '\n');
}

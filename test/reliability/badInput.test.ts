/**
 * I7 (and I1–I4 at the edges): one table of bad or odd inputs to the real CLI. Each row says what it
 * expects — an error code with its exit code, or success with exact content — and what must stay unchanged
 * (the workspace incl. mtimes and every .git byte, and/or the data directory).
 *
 * The tests run as root, where chmod 000 does not stop reads: rows about permissions run the CLI as `nobody`
 * through setpriv, and are skipped with a printed reason where that is impossible.
 */
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createService } from '../../src/main/service';
import {
  CLI_BIN,
  cleanupTempDirs,
  cloneWorkspace,
  fsck,
  defaultProject,
  git,
  gitAt,
  gitManifest,
  maintenanceSettled,
  makeWorkspace,
  manifestDiff,
  runCli,
  shadowDir,
  tempDir,
  tempHome,
  treeManifest,
  workspaceDataDir,
  writeTree,
  type CliOptions,
  type CliResult,
  type Manifest,
} from '../helpers/index';

afterAll(cleanupTempDirs);

interface Ctx {
  ws: string;
  home: string;
  /** HOME for the CLI: a temp folder with Desktop/Documents/Downloads, so protected-folder rows are safe. */
  userHome: string;
  /** Scratch space outside the workspace. */
  scratch: string;
  /** Set by `prepared` rows: two checkpoints, the workspace changed after the second one. */
  session?: string;
  h1?: string;
  h2?: string;
  m1?: string;
  /** Anything a row's setup wants to hand to its check. */
  note: Record<string, unknown>;
  run(args: string[], extra?: Partial<CliOptions>): Promise<CliResult>;
}

type Expect = { code: string; exit?: number } | { ok: true; check?: (ctx: Ctx, r: CliResult) => Promise<void> | void };

interface Row {
  name: string;
  /** Two checkpoints first (h1, h2) and a change after h2. */
  prepared?: boolean;
  /** No user git repository in the workspace. */
  noUserGit?: boolean;
  setup?: (ctx: Ctx) => Promise<void> | void;
  /** Return a reason to skip this row on this machine, or null. */
  skip?: (ctx: Ctx) => string | null;
  /** The command (`--json` is added). */
  args: (ctx: Ctx) => string[];
  opts?: (ctx: Ctx) => Partial<CliOptions>;
  expect: Expect;
  /** Must be byte-identical afterwards: the workspace (with mtimes and .git) and/or the data directory. */
  unchanged?: ('workspace' | 'data')[];
}

const NOBODY = { uid: 65534, gid: 65534 };
const canDropPrivileges = ((): boolean => {
  if (process.getuid?.() !== 0) return false;
  // `nobody` must be able to start the CLI itself (the checkout may live in a folder only root can enter).
  const r = spawnSync(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, CLI_BIN, '--help'],
    {
      cwd: '/',
    },
  );
  return r.status === 0;
})();
const isRoot = process.getuid?.() === 0;
/** Permission rows: as root they run the CLI as nobody; as anyone else chmod already works. */
const asNobodyReason = (): string | null =>
  !isRoot || canDropPrivileges
    ? null
    : 'running as root, and the CLI cannot be started as nobody (no setpriv, or the checkout is not readable by nobody): chmod does not stop root';
const unprivileged = (): Partial<CliOptions> => (isRoot ? { asUser: NOBODY } : {});

/** Let `nobody` read the workspace and write the data dir (for the rows that run the CLI as nobody). */
function handToNobody(ctx: Ctx): void {
  if (!isRoot) return;
  for (const dir of [ctx.home, ctx.ws]) execFileSync('chown', ['-R', `${NOBODY.uid}:${NOBODY.gid}`, dir]);
}

const outOf = (r: CliResult): Record<string, unknown> => (r.json ?? {}) as Record<string, unknown>;
const lsTree = (ctx: Ctx, hash: string): string => gitAt(shadowDir(ctx.home, ctx.ws), ['ls-tree', '-r', '-z', hash]);

/** Checkpoint, change every file listed, restore --code to the checkpoint, and demand the exact bytes back. */
async function roundTrip(ctx: Ctx, paths: string[]): Promise<void> {
  const before = treeManifest(ctx.ws);
  const c = await ctx.run(['checkpoint']);
  expect(c.code, c.stderr).toBe(0);
  const hash = outOf(c).hash as string;
  for (const p of paths) writeFileSync(join(ctx.ws, p), 'clobbered\n');
  await ctx.run(['checkpoint']);
  // I4: the restore rewrites only the clobbered files; every other file keeps its mtime.
  const untouched = (m: Manifest) => new Map([...m].filter(([k]) => !paths.includes(k)));
  const mtimesBefore = untouched(treeManifest(ctx.ws, { mtimes: true }));
  const r = await ctx.run(['restore', hash, '--code']);
  expect(r.code, r.stderr).toBe(0);
  expect([...(outOf(r).changed as string[])].sort()).toEqual([...paths].sort());
  const after = treeManifest(ctx.ws);
  expect(manifestDiff(before, after)).toEqual([]);
  expect(manifestDiff(mtimesBefore, untouched(treeManifest(ctx.ws, { mtimes: true })))).toEqual([]);
}

const rows: Row[] = [
  // ---- which folder ----------------------------------------------------------------------------------
  {
    name: 'missing folder (absolute path)',
    args: (c) => ['status', '--cwd', join(c.scratch, 'nope')],
    expect: { code: 'E_NOT_FOUND', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'missing folder (relative path)',
    args: () => ['checkpoint', '--cwd', 'does-not-exist'],
    expect: { code: 'E_NOT_FOUND', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'relative path resolves against the current folder (success)',
    args: (c) => ['status', '--cwd', basename(c.ws)],
    opts: (c) => ({ cwd: dirname(c.ws) }),
    expect: { ok: true, check: (c, r) => expect(outOf(r).workspace).toBe(realpathSync(c.ws)) },
    unchanged: ['workspace'],
  },
  {
    name: '~/project expands to the home folder (success)',
    setup: (c) => writeTree(c.userHome, { 'project/a.txt': 'a\n' }),
    args: () => ['checkpoint', '--cwd', '~/project'],
    expect: {
      ok: true,
      check: async (c) => {
        const s = await c.run(['status', '--cwd', join(c.userHome, 'project')]);
        expect(outOf(s).checkpoints).toBe(1);
      },
    },
  },
  {
    name: '~ alone (the home folder)',
    args: () => ['checkpoint', '--cwd', '~'],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'a system folder, through a symlink (/proc/self)',
    skip: () => (existsSync('/proc/self') ? null : 'no /proc on this system'),
    args: () => ['checkpoint', '--cwd', '/proc/self'],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'a file instead of a folder',
    args: (c) => ['checkpoint', '--cwd', join(c.ws, 'README.md')],
    expect: { code: 'E_NOT_A_DIRECTORY', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'the home folder',
    args: (c) => ['checkpoint', '--cwd', c.userHome],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'the home folder with a trailing slash',
    args: (c) => ['checkpoint', '--cwd', `${c.userHome}/`],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'the home folder spelt with ./ and ..',
    args: (c) => ['checkpoint', '--cwd', `${c.userHome}/./Documents/..`],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'the home folder through a symlink',
    setup: (c) => symlinkSync(c.userHome, join(c.scratch, 'home-link')),
    args: (c) => ['checkpoint', '--cwd', join(c.scratch, 'home-link')],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'the home folder in another letter case',
    skip: (c) =>
      existsSync(c.userHome.toUpperCase())
        ? null
        : 'case-sensitive file system: the other spelling is another (missing) folder, see next row',
    args: (c) => ['checkpoint', '--cwd', c.userHome.toUpperCase()],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'the home folder in another case on a case-sensitive fs is just a missing folder',
    skip: (c) => (existsSync(c.userHome.toUpperCase()) ? 'case-insensitive file system' : null),
    args: (c) => ['checkpoint', '--cwd', c.userHome.toUpperCase()],
    expect: { code: 'E_NOT_FOUND', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: '~/Desktop',
    args: () => ['checkpoint', '--cwd', '~/Desktop'],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: '~/Documents/ (trailing slash)',
    args: (c) => ['checkpoint', '--cwd', `${c.userHome}/Documents/`],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: '~/Downloads through a symlink',
    setup: (c) => symlinkSync(join(c.userHome, 'Downloads'), join(c.scratch, 'dl')),
    args: (c) => ['checkpoint', '--cwd', join(c.scratch, 'dl')],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'a folder that contains the home folder',
    args: (c) => ['checkpoint', '--cwd', dirname(c.userHome)],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'the filesystem root',
    args: () => ['checkpoint', '--cwd', '/'],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'the filesystem root spelt //.',
    args: () => ['checkpoint', '--cwd', '//.'],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'the data directory itself',
    prepared: true,
    args: (c) => ['checkpoint', '--cwd', c.home],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'a folder inside the data directory',
    prepared: true,
    args: (c) => ['checkpoint', '--cwd', join(c.home, 'workspaces')],
    expect: { code: 'E_PROTECTED_DIR', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'a symlink loop as the folder',
    setup: (c) => {
      symlinkSync(join(c.scratch, 'loop-b'), join(c.scratch, 'loop-a'));
      symlinkSync(join(c.scratch, 'loop-a'), join(c.scratch, 'loop-b'));
    },
    args: (c) => ['checkpoint', '--cwd', join(c.scratch, 'loop-a')],
    expect: { code: 'E_NOT_FOUND', exit: 1 },
    unchanged: ['data'],
  },
  {
    name: 'an unreadable workspace folder (as nobody)',
    skip: asNobodyReason,
    setup: (c) => {
      handToNobody(c);
      chmodSync(c.ws, 0o000);
    },
    args: (c) => ['checkpoint', '--cwd', c.ws],
    opts: unprivileged,
    expect: { code: 'E_UNREADABLE', exit: 1 },
    unchanged: ['data'],
  },
  // ---- what is inside the folder -------------------------------------------------------------------------
  {
    name: 'an unreadable file (as nobody): error, no checkpoint',
    prepared: true,
    skip: asNobodyReason,
    setup: (c) => {
      handToNobody(c);
      chmodSync(join(c.ws, 'src/util.ts'), 0o000);
    },
    args: () => ['checkpoint'],
    opts: unprivileged,
    expect: { code: 'E_UNREADABLE', exit: 1 },
    unchanged: ['workspace'],
  },
  {
    name: 'an unreadable subfolder (as nobody): error, no checkpoint',
    prepared: true,
    skip: asNobodyReason,
    setup: (c) => {
      handToNobody(c);
      writeTree(c.ws, { 'private/secret.txt': 'x\n' });
      if (isRoot) execFileSync('chown', ['-R', `${NOBODY.uid}:${NOBODY.gid}`, join(c.ws, 'private')]);
      chmodSync(join(c.ws, 'private'), 0o000);
    },
    args: () => ['checkpoint'],
    opts: unprivileged,
    expect: { code: 'E_UNREADABLE', exit: 1 },
    unchanged: ['workspace'],
  },
  {
    name: 'files that vanish and reappear while the snapshot runs (success, snapshot is coherent)',
    setup: (c) =>
      writeTree(c.ws, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`churn/f${i}.txt`, `${i}\n`]))),
    args: () => ['checkpoint'],
    opts: (c) => {
      // Delete and re-create files under the running snapshot until the command is done.
      let i = 0;
      const timer = setInterval(() => {
        try {
          for (let k = 0; k < 15; k++, i++) {
            const f = join(c.ws, 'churn', `f${(i * 7) % 300}.txt`);
            if (existsSync(f)) rmSync(f, { force: true });
            else writeFileSync(f, `${i}\n`);
          }
        } catch {
          clearInterval(timer); // the folder is gone: the row is over
        }
      }, 2);
      c.note.stop = () => clearInterval(timer);
      return {};
    },
    expect: {
      ok: true,
      check: async (c, r) => {
        // Whatever it saw, the checkpoint is a whole commit that diffs against the files now.
        const d = await c.run(['diff', outOf(r).hash as string]);
        expect(d.code, d.stderr).toBe(0);
        const f = fsck(shadowDir(c.home, c.ws));
        expect(f.ok, f.output).toBe(true);
      },
    },
  },
  {
    name: 'a symlink loop inside the folder (stored as links, success)',
    setup: (c) => {
      symlinkSync('loop-2', join(c.ws, 'loop-1'));
      symlinkSync('loop-1', join(c.ws, 'loop-2'));
    },
    args: () => ['checkpoint'],
    expect: {
      ok: true,
      check: (c, r) => {
        const t = lsTree(c, outOf(r).hash as string);
        expect(t).toContain('120000 blob');
        expect(t).toMatch(/\tloop-1\0/);
        expect(t).toMatch(/\tloop-2\0/);
      },
    },
    unchanged: ['workspace'],
  },
  {
    name: 'a symlink out of the folder (stored as a link, never followed or written through)',
    setup: (c) => {
      writeTree(c.scratch, { 'outside/secret.txt': 'outside secret\n' });
      symlinkSync(join(c.scratch, 'outside'), join(c.ws, 'out-link'));
    },
    args: () => ['checkpoint'],
    expect: {
      ok: true,
      check: async (c, r) => {
        const hash = outOf(r).hash as string;
        const t = lsTree(c, hash);
        expect(t).toMatch(/(^|\0)120000 blob [0-9a-f]{40}\tout-link\0/);
        expect(t).not.toContain('secret.txt');
        // A restore that rewrites files never writes through the link into the outside folder.
        writeFileSync(join(c.ws, 'README.md'), 'changed\n');
        const rr = await c.run(['restore', hash, '--code']);
        expect(rr.code, rr.stderr).toBe(0);
        expect(readFileSync(join(c.scratch, 'outside/secret.txt'), 'utf8')).toBe('outside secret\n');
        expect(readdirSync(join(c.scratch, 'outside'))).toEqual(['secret.txt']);
      },
    },
  },
  {
    name: 'a file name with a newline (exact round trip)',
    setup: (c) => writeFileSync(join(c.ws, 'two\nlines.txt'), 'nl\n'),
    args: () => ['status'],
    expect: {
      ok: true,
      check: async (c) => {
        await roundTrip(c, ['two\nlines.txt']);
        const log = await c.run(['diff', (outOf(await c.run(['log'])).messages as { hash: string }[])[0]!.hash]);
        expect(log.code, log.stderr).toBe(0);
      },
    },
  },
  {
    name: 'a file name that is not valid UTF-8: reported as not captured, never touched by a restore',
    prepared: true,
    setup: (c) => {
      const name = Buffer.concat([Buffer.from(`${c.ws}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.bin')]);
      writeFileSync(name, 'raw\n');
      c.note.name = name;
    },
    args: () => ['checkpoint'],
    expect: {
      ok: true,
      check: async (c) => {
        const dir = join(workspaceDataDir(c.home, c.ws)!, 'sessions');
        expect(readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8')).toContain('"reason":"unsupported-name"');
        const name = c.note.name as Buffer;
        const before = statSync(name).mtimeMs;
        const rr = await c.run(['restore', c.h1!, '--code']);
        expect(rr.code, rr.stderr).toBe(0);
        expect(readFileSync(name, 'utf8')).toBe('raw\n');
        expect(statSync(name).mtimeMs).toBe(before);
      },
    },
  },
  {
    name: 'file names with leading dashes (exact round trip)',
    setup: (c) => writeTree(c.ws, { '-rf': 'dash\n', '--help.txt': 'dashes\n', 'src/-n': 'n\n' }),
    args: () => ['status'],
    expect: { ok: true, check: (c) => roundTrip(c, ['-rf', '--help.txt', 'src/-n']) },
  },
  {
    name: 'a 200 MB (sparse) file: reported as not captured, never deleted by a restore',
    prepared: true,
    setup: (c) => {
      writeFileSync(join(c.ws, 'big.bin'), '');
      truncateSync(join(c.ws, 'big.bin'), 200 * 1024 * 1024);
    },
    args: () => ['checkpoint'],
    expect: {
      ok: true,
      check: async (c, r) => {
        const hash = outOf(r).hash as string;
        expect(lsTree(c, hash)).not.toContain('big.bin');
        // Reported, not silently dropped: the checkpoint message records it (the CLI may print it too).
        const logFile = readdirSync(join(workspaceDataDir(c.home, c.ws)!, 'sessions'))[0]!;
        const events = readFileSync(join(workspaceDataDir(c.home, c.ws)!, 'sessions', logFile), 'utf8');
        expect(events).toMatch(/"path":"big\.bin","reason":"too-large"/);
        const rr = await c.run(['restore', c.h1!, '--code']);
        expect(rr.code, rr.stderr).toBe(0);
        expect(statSync(join(c.ws, 'big.bin')).size).toBe(200 * 1024 * 1024);
        expect(du(shadowDir(c.home, c.ws))).toBeLessThan(20 * 1024 * 1024);
      },
    },
  },
  {
    name: 'CRLF, lone CR and no final newline: bytes kept exactly despite the user’s eol settings',
    setup: (c) => {
      writeTree(c.ws, {
        '.gitattributes': '* text=auto eol=lf\n',
        'win.txt': 'a\r\nb\r\n',
        'mac.txt': 'a\rb\r',
        'mixed.txt': 'a\r\nb\nc',
      });
      git(c.ws, ['config', 'core.autocrlf', 'true']);
    },
    args: () => ['status'],
    expect: {
      ok: true,
      check: async (c) => {
        await roundTrip(c, ['win.txt', 'mac.txt', 'mixed.txt']);
        expect(readFileSync(join(c.ws, 'win.txt'))).toEqual(Buffer.from('a\r\nb\r\n'));
      },
    },
  },
  {
    name: 'a case-only rename is captured and restored',
    setup: (c) => writeTree(c.ws, { 'Readme.TXT': 'case\n' }),
    args: () => ['checkpoint'],
    expect: {
      ok: true,
      check: async (c, r) => {
        const before = treeManifest(c.ws);
        renameSync(join(c.ws, 'Readme.TXT'), join(c.ws, 'readme.txt'));
        const c2 = await c.run(['checkpoint']);
        expect(c2.code, c2.stderr).toBe(0);
        expect(lsTree(c, outOf(c2).hash as string)).toMatch(/\treadme\.txt\0/);
        const rr = await c.run(['restore', outOf(r).hash as string, '--code']);
        expect(rr.code, rr.stderr).toBe(0);
        expect(manifestDiff(before, treeManifest(c.ws))).toEqual([]);
      },
    },
  },
  {
    name: 'an empty folder (success, zero files)',
    noUserGit: true,
    setup: (c) => {
      rmSync(c.ws, { recursive: true, force: true });
      mkdirSync(c.ws);
    },
    args: () => ['checkpoint'],
    expect: {
      ok: true,
      check: async (c, r) => {
        expect(outOf(r).changed).toEqual({ added: 0, modified: 0, deleted: 0 });
        expect(readdirSync(c.ws)).toEqual([]);
        const s = await c.run(['status']);
        expect(outOf(s).checkpoints).toBe(1);
      },
    },
  },
  {
    name: 'a git submodule: its files are captured, its .git never touched',
    setup: (c) => {
      const sub = join(c.ws, 'vendor/lib');
      mkdirSync(sub, { recursive: true });
      writeFileSync(join(sub, 'lib.c'), 'int x;\n');
      git(sub, ['init', '-q', '-b', 'main']);
      git(sub, ['add', '-A']);
      git(sub, ['commit', '-q', '-m', 'sub']);
      const head = git(sub, ['rev-parse', 'HEAD']).trim();
      git(c.ws, ['update-index', '--add', '--cacheinfo', `160000,${head},vendor/lib`]);
    },
    args: () => ['checkpoint'],
    expect: {
      ok: true,
      check: async (c, r) => {
        const t = lsTree(c, outOf(r).hash as string);
        expect(t).toMatch(/\tvendor\/lib\/lib\.c\0/);
        expect(t).not.toMatch(/vendor\/lib\/\.git/);
        expect(t).not.toContain('160000');
        writeFileSync(join(c.ws, 'vendor/lib/lib.c'), 'int y;\n');
        const before = gitManifest(c.ws);
        const rr = await c.run(['restore', outOf(r).hash as string, '--code']);
        expect(rr.code, rr.stderr).toBe(0);
        expect(readFileSync(join(c.ws, 'vendor/lib/lib.c'), 'utf8')).toBe('int x;\n');
        expect(manifestDiff(before, gitManifest(c.ws))).toEqual([]);
      },
    },
    unchanged: ['workspace'],
  },
  {
    name: 'a worktree whose .git is a file: not captured, never touched',
    noUserGit: true,
    setup: (c) => {
      const main = join(c.scratch, 'main-repo');
      writeTree(main, { 'a.txt': 'a\n' });
      git(main, ['init', '-q', '-b', 'main']);
      git(main, ['add', '-A']);
      git(main, ['commit', '-q', '-m', 'm']);
      rmSync(c.ws, { recursive: true, force: true });
      git(main, ['worktree', 'add', '-q', c.ws, '-b', 'wt']);
      writeFileSync(join(c.ws, 'wt-only.txt'), 'wt\n');
      c.note.mainGit = gitManifest(main);
      c.note.main = main;
    },
    args: () => ['checkpoint'],
    expect: {
      ok: true,
      check: (c, r) => {
        const t = lsTree(c, outOf(r).hash as string);
        expect(t).toMatch(/\twt-only\.txt\0/);
        expect(t).not.toMatch(/\t\.git\0/);
        expect(manifestDiff(c.note.mainGit as Manifest, gitManifest(c.note.main as string))).toEqual([]);
      },
    },
    unchanged: ['workspace'],
  },
  // ---- the machine ------------------------------------------------------------------------------------------
  {
    name: 'git not on PATH',
    args: () => ['checkpoint'],
    opts: (c) => ({ path: c.scratch }),
    expect: { code: 'E_GIT_MISSING', exit: 1 },
    unchanged: ['workspace'],
  },
  {
    name: 'a read-only data directory (as nobody)',
    skip: asNobodyReason,
    setup: (c) => {
      handToNobody(c);
      chmodSync(c.home, 0o555);
    },
    args: () => ['checkpoint'],
    opts: unprivileged,
    expect: { code: 'E_DATA_DIR', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  // ---- naming checkpoints, sessions, messages ---------------------------------------------------------------
  {
    name: 'an unknown checkpoint (restore)',
    prepared: true,
    args: () => ['restore', 'deadbeefdeadbeef', '--code'],
    expect: { code: 'E_UNKNOWN_CHECKPOINT', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'an unknown checkpoint (diff)',
    prepared: true,
    args: () => ['diff', '0123456789abcdef0123456789abcdef01234567'],
    expect: { code: 'E_UNKNOWN_CHECKPOINT', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'a prefix shorter than 7 hex digits',
    prepared: true,
    args: (c) => ['restore', c.h1!.slice(0, 5), '--code'],
    expect: { code: 'E_UNKNOWN_CHECKPOINT', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'an unknown message id',
    prepared: true,
    args: () => ['restore', 'msg-does-not-exist', '--conversation'],
    expect: { code: 'E_UNKNOWN_CHECKPOINT', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'an ambiguous 7-digit prefix',
    prepared: true,
    setup: (c) => {
      c.note.prefix = plantAmbiguousCheckpoints(c);
    },
    args: (c) => ['restore', c.note.prefix as string, '--code'],
    expect: { code: 'E_AMBIGUOUS', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'an ambiguous prefix in diff',
    prepared: true,
    setup: (c) => {
      c.note.prefix = plantAmbiguousCheckpoints(c);
    },
    args: (c) => ['diff', c.note.prefix as string],
    expect: { code: 'E_AMBIGUOUS', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'an unknown session',
    prepared: true,
    args: () => ['log', '--session', 'no-such-session'],
    expect: { code: 'E_UNKNOWN_SESSION', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'a message id from another session (service: message)',
    prepared: true,
    args: () => ['message', '--role', 'user', '--text', 'other', '--session', 'other-session'],
    expect: {
      ok: true,
      check: async (c) => {
        const service = createService({ host: 'serve', dataHome: c.home, watch: false });
        try {
          const ws = await service.dispatch('openWorkspace', { path: c.ws });
          expect(ws.ok).toBe(true);
          const id = (ws as { value: { id: string } }).value.id;
          const r = await service.dispatch('message', { workspace: id, session: 'other-session', id: c.m1 });
          expect(r).toMatchObject({ ok: false, error: { code: 'E_UNKNOWN_MESSAGE' } });
          const good = await service.dispatch('message', { workspace: id, session: c.session, id: c.m1 });
          expect(good.ok).toBe(true);
        } finally {
          await service.close();
        }
      },
    },
  },
  {
    name: 'move from a folder that still exists (its history stays with it)',
    prepared: true,
    args: (c) => ['move', c.ws, c.scratch],
    expect: { code: 'E_INVALID_INPUT', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'move from a folder Retrace never knew',
    prepared: true,
    args: (c) => ['move', join(c.scratch, 'never-here')],
    expect: { code: 'E_NOT_FOUND', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  // ---- the command line ---------------------------------------------------------------------------------
  {
    name: 'an unknown command',
    args: () => ['frobnicate'],
    expect: { code: 'E_USAGE', exit: 2 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'an unknown flag',
    args: () => ['checkpoint', '--frobnicate'],
    expect: { code: 'E_USAGE', exit: 2 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'restore without a mode',
    prepared: true,
    args: (c) => ['restore', c.h1!],
    expect: { code: 'E_USAGE', exit: 2 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'restore with two modes',
    prepared: true,
    args: (c) => ['restore', c.h1!, '--code', '--both'],
    expect: { code: 'E_USAGE', exit: 2 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'a role that does not exist',
    args: () => ['message', '--role', 'boss', '--text', 'x'],
    expect: { code: 'E_USAGE', exit: 2 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'restore --file with ..',
    prepared: true,
    args: (c) => ['restore', c.h1!, '--code', '--file', '../outside.txt'],
    expect: { code: 'E_PATH_OUTSIDE_WORKSPACE', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'restore --file with an absolute path outside',
    prepared: true,
    args: (c) => ['restore', c.h1!, '--code', '--file', '/etc/passwd'],
    expect: { code: 'E_PATH_OUTSIDE_WORKSPACE', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  {
    name: 'undo with nothing to undo',
    prepared: true,
    args: () => ['undo'],
    expect: { code: 'E_NOTHING_TO_UNDO', exit: 1 },
    unchanged: ['workspace', 'data'],
  },
  // ---- integrations and logs ----------------------------------------------------------------------------
  {
    name: 'malformed hook JSON: exit 0, error logged, nothing recorded',
    args: () => ['hook', 'claude-code'],
    opts: () => ({ input: '{"hook_event_name": "PostToolUse", "session_id": ' }),
    expect: {
      ok: true,
      check: (c, r) => {
        expect(r.code).toBe(0);
        const logged = listFiles(c.home).filter(
          (f) => /\.(log|jsonl)$/.test(f) && /hook|error/i.test(readFileSync(f, 'utf8') + f),
        );
        expect(logged.length, 'an error log in the data directory').toBeGreaterThan(0);
      },
    },
    unchanged: ['workspace'],
  },
  {
    name: 'a truncated session log: earlier messages kept, next append works',
    prepared: true,
    setup: (c) => {
      const dir = join(workspaceDataDir(c.home, c.ws)!, 'sessions');
      const file = join(dir, readdirSync(dir)[0]!);
      appendFileSync(file, '{"type":"message","id":"torn","ts":"2026-');
      c.note.file = file;
    },
    args: () => ['log'],
    expect: {
      ok: true,
      check: async (c, r) => {
        const before = (outOf(r).messages as { id: string }[]).map((m) => m.id);
        expect(before).toContain(c.m1);
        expect(before).not.toContain('torn');
        const m = await c.run(['message', '--role', 'user', '--text', 'after the tear']);
        expect(m.code, m.stderr).toBe(0);
        const after = outOf(await c.run(['log'])).messages as { id: string; text: string }[];
        expect(after.map((x) => x.id)).toEqual([...before, outOf(m).message]);
        expect(after.at(-1)!.text).toBe('after the tear');
      },
    },
  },
];

describe('bad input matrix (I7)', () => {
  it(`has at least 30 rows (${rows.length})`, () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  const skipped: string[] = [];
  afterAll(() => {
    for (const s of skipped) console.log(`bad-input: skipped ${s}`);
    console.log(`bad-input: ${rows.length} rows, ${rows.length - skipped.length} run, ${skipped.length} skipped`);
  });

  it.concurrent.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const ctx = await makeCtx(row);
    const reason = row.skip?.(ctx) ?? null;
    if (reason) {
      skipped.push(`"${row.name}": ${reason}`);
      return;
    }
    await row.setup?.(ctx);
    const extra = row.opts?.(ctx) ?? {};
    const wsBefore = snapshotWorkspace(ctx.ws);
    await maintenanceSettled(ctx.home); // a checkpoint of the setup may have started one (helpers/cli.ts)
    const dataBefore = snapshotData(ctx.home);
    let r: CliResult;
    try {
      r = await ctx.run(row.args(ctx), extra);
    } finally {
      (ctx.note.stop as (() => void) | undefined)?.();
    }

    if ('code' in row.expect) {
      expect(r.json, `stdout is one JSON document: ${r.stdout}`).toBeDefined();
      expect((r.json as { error?: { code?: string } }).error?.code, r.stderr).toBe(row.expect.code);
      expect(r.code).toBe(row.expect.exit ?? 1);
      const lines = r.stderr.trim().split('\n');
      expect(lines.length, r.stderr).toBe(1);
      expect(lines[0]).toMatch(/^retrace: \S/);
    } else {
      expect(r.code, r.stderr).toBe(0);
    }
    // Unchanged-ness is judged on what the command did, before any follow-up checks.
    if (row.unchanged?.includes('workspace')) expect(manifestDiff(wsBefore, snapshotWorkspace(ctx.ws))).toEqual([]);
    if (row.unchanged?.includes('data')) expect(manifestDiff(dataBefore, snapshotData(ctx.home))).toEqual([]);
    if ('ok' in row.expect) await row.expect.check?.(ctx, r);
  });
});

// ---------------------------------------------------------------------------------------------------------

/** One prepared workspace (two checkpoints, a change after the second), cloned for each `prepared` row. */
let preparedTemplate: Promise<{ ws: string; home: string; ids: Pick<Ctx, 'session' | 'm1' | 'h1' | 'h2'> }> | null =
  null;

function preparedOnce(): NonNullable<typeof preparedTemplate> {
  preparedTemplate ??= (async () => {
    const ws = makeWorkspace(defaultProject(), { userGit: true });
    const home = tempHome();
    const run = (args: string[]) => runCli([...args, '--json'], { home, cwd: ws });
    const a = await run(['message', '--role', 'user', '--text', 'first', '--checkpoint']);
    expect(a.code, a.stderr).toBe(0);
    writeFileSync(join(ws, 'src/index.ts'), 'export const answer = 7;\n');
    const b = await run(['checkpoint', '--text', 'second']);
    expect(b.code, b.stderr).toBe(0);
    writeFileSync(join(ws, 'src/util.ts'), 'changed after the last checkpoint\n');
    const ids = {
      session: outOf(a).session as string,
      m1: outOf(a).message as string,
      h1: outOf(a).hash as string,
      h2: outOf(b).hash as string,
    };
    return { ws, home, ids };
  })();
  return preparedTemplate;
}

async function makeCtx(row: Row): Promise<Ctx> {
  let ws: string;
  let home: string;
  let ids: Pick<Ctx, 'session' | 'm1' | 'h1' | 'h2'> = {};
  if (row.prepared) {
    const t = await preparedOnce();
    ({ ws, home } = await cloneWorkspace(t.ws, t.home));
    ids = t.ids;
  } else {
    ws = makeWorkspace(defaultProject(), { userGit: !row.noUserGit });
    home = tempHome();
  }
  const userHome = tempDir('retrace-userhome-');
  writeTree(userHome, { 'Desktop/a': '', 'Documents/b': '', 'Downloads/c': '' });
  const scratch = tempDir('retrace-scratch-');
  const ctx: Ctx = {
    ws,
    home,
    userHome,
    scratch,
    ...ids,
    note: {},
    run: (args, extra = {}) =>
      runCli([...args, '--json'], { home, cwd: ws, ...extra, env: { HOME: userHome, ...(extra.env ?? {}) } }),
  };
  return ctx;
}

/** The workspace with mtimes, plus every byte of every .git in it. */
function snapshotWorkspace(ws: string): Manifest {
  if (!existsSync(ws)) return new Map();
  const m = treeManifest(ws, { mtimes: true, dirs: true });
  for (const [k, v] of gitManifest(ws)) m.set(`[git] ${k}`, v);
  return m;
}

/** Every file of the data directory by content (the writer lock comes and goes; its absence is checked). */
function snapshotData(home: string): Manifest {
  const m = treeManifest(home, { exclude: (p) => p.endsWith('/writer.lock') });
  for (const [k, v] of gitManifest(home)) m.set(`[git] ${k}`, v);
  return m;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full));
    else out.push(full);
  }
  return out;
}

function du(dir: string): number {
  return listFiles(dir).reduce((n, f) => n + statSync(f).size, 0);
}

/**
 * Give the workspace two checkpoint messages whose hashes share their first 7 hex digits: find two commit
 * bodies that collide on 28 bits (birthday search, ~16k SHA-1s), store them as real commits of the shadow
 * repository, and append a checkpoint message for each to the session log.
 */
function plantAmbiguousCheckpoints(c: Ctx): string {
  const gitDir = shadowDir(c.home, c.ws);
  const tree = gitAt(gitDir, ['rev-parse', `${c.h2}^{tree}`]).trim();
  const seen = new Map<string, string>();
  let pair: [string, string] | null = null;
  for (let i = 0; !pair; i++) {
    const body = `tree ${tree}\nparent ${c.h2}\nauthor Retrace <retrace@localhost> 0 +0000\ncommitter Retrace <retrace@localhost> 0 +0000\n\nprobe ${i}\n`;
    const id = createHash('sha1')
      .update(`commit ${Buffer.byteLength(body)}\0${body}`)
      .digest('hex');
    const prev = seen.get(id.slice(0, 7));
    if (prev !== undefined) pair = [prev, body];
    else seen.set(id.slice(0, 7), body);
  }
  const ids = pair.map((body) =>
    execFileSync('git', [`--git-dir=${gitDir}`, 'hash-object', '-t', 'commit', '-w', '--stdin'], {
      input: body,
      encoding: 'utf8',
    }).trim(),
  );
  expect(ids[0]!.slice(0, 7)).toBe(ids[1]!.slice(0, 7));
  const dir = join(workspaceDataDir(c.home, c.ws)!, 'sessions');
  const file = join(dir, readdirSync(dir)[0]!);
  const ts = new Date().toISOString();
  const lines = ids.map((hash, i) =>
    JSON.stringify({ type: 'message', id: `planted-${i}`, ts, role: 'system', text: 'planted', hash }),
  );
  appendFileSync(file, lines.join('\n') + '\n');
  // Keep the planted commits reachable like any checkpoint.
  gitAt(gitDir, ['update-ref', `refs/retrace/sessions/${c.session}`, ids[1]!]);
  return ids[0]!.slice(0, 7);
}

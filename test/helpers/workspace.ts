/**
 * Build small real workspaces from a declarative spec, optionally with the user's own git repository
 * (commits, a branch, a stash, a hook) so tests can prove it stays byte-identical (I1).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from './tmp';

export type FileSpec =
  string | Buffer | { content: string | Buffer; mode?: number } | { symlink: string } | { dir: true };

export type TreeSpec = Record<string, FileSpec>;

/** Write a spec into `root` (creating parents). Later entries may overwrite earlier ones. */
export function writeTree(root: string, spec: TreeSpec): void {
  for (const [rel, file] of Object.entries(spec)) {
    const full = join(root, rel);
    mkdirSync(dirname(full), { recursive: true });
    if (typeof file === 'string' || Buffer.isBuffer(file)) {
      writeFileSync(full, file);
    } else if ('symlink' in file) {
      symlinkSync(file.symlink, full);
    } else if ('dir' in file) {
      mkdirSync(full, { recursive: true });
    } else {
      writeFileSync(full, file.content);
      if (file.mode !== undefined) chmodSync(full, file.mode);
    }
  }
}

/** A fresh temp workspace holding `spec` (a default small project when omitted). */
export function makeWorkspace(spec: TreeSpec = defaultProject(), opts: { userGit?: boolean } = {}): string {
  const root = tempDir('retrace-ws-');
  writeTree(root, spec);
  if (opts.userGit) initUserGit(root);
  return root;
}

/** A few files of each kind: text, CRLF text, binary, executable, symlink, nested folder, excluded secrets. */
export function defaultProject(): TreeSpec {
  return {
    'README.md': '# demo\n',
    'src/index.ts': 'export const answer = 42;\n',
    'src/util.ts': 'export function add(a: number, b: number) {\n  return a + b;\n}\n',
    'docs/crlf.txt': 'line one\r\nline two\r\n',
    'assets/logo.bin': Buffer.from([0, 1, 2, 3, 255, 254, 0, 10]),
    'scripts/run.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 },
    'link-to-readme': { symlink: 'README.md' },
    '.env': 'SECRET=1\n',
    'node_modules/dep/index.js': 'module.exports = 1;\n',
  };
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test User',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test User',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Run git in `cwd` with a fixed identity and no user config. */
export function git(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/**
 * Turn `root` into the user's git repository: two commits, a branch, a stash entry, a hook and an
 * untracked file — everything I1 promises to leave alone.
 */
export function initUserGit(root: string): void {
  git(root, ['init', '-q', '-b', 'main']);
  writeFileSync(join(root, '.gitignore'), 'ignored-by-user.log\n');
  writeFileSync(join(root, 'ignored-by-user.log'), 'noise\n');
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'first']);
  git(root, ['branch', 'feature']);
  writeFileSync(join(root, 'README.md'), '# demo\nstashed change\n');
  git(root, ['add', 'README.md']);
  git(root, ['stash', 'push', '-q', '-m', 'wip']);
  writeFileSync(join(root, 'untracked.txt'), 'not added\n');
  writeFileSync(join(root, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  // A staged change, so the index differs from HEAD.
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src/staged.ts'), 'export const staged = true;\n');
  git(root, ['add', 'src/staged.ts']);
}

/**
 * The workspace the CLI tests use: a real git repository with everything a user's project has — staged,
 * unstaged and untracked work, a stash, a hook, a nested repository, binary files, a symlink, an executable
 * script, unicode and quoted names, and ignored dist/ and node_modules/.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, makeWorkspace, writeTree } from '../helpers';

export const UNICODE_NAME = 'docs/naïve café — 日本.md';
export const QUOTED_NAME = 'docs/say "hi" it\'s.txt';

export function makeUserProject(): string {
  const root = makeWorkspace({
    'README.md': '# project\n',
    'src/app.ts': 'export const app = 1;\n',
    'src/lib.ts': 'export const lib = 1;\n',
    'assets/image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0xff, 0, 7]),
    'scripts/build.sh': { content: '#!/bin/sh\necho build\n', mode: 0o755 },
    'link.md': { symlink: 'README.md' },
    [UNICODE_NAME]: 'unicode\n',
    [QUOTED_NAME]: 'quoted\n',
    '.gitignore': 'dist/\nnode_modules/\n*.log\n',
  });
  git(root, ['init', '-q', '-b', 'main']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'initial']);
  // A stash entry.
  writeFileSync(join(root, 'README.md'), '# project\nstashed\n');
  git(root, ['stash', 'push', '-q', '-m', 'wip']);
  writeFileSync(join(root, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  // Staged, unstaged and untracked work.
  writeFileSync(join(root, 'src/staged.ts'), 'export const staged = 1;\n');
  git(root, ['add', 'src/staged.ts']);
  writeFileSync(join(root, 'src/lib.ts'), 'export const lib = 2; // unstaged\n');
  writeFileSync(join(root, 'notes.txt'), 'untracked\n');
  // Ignored output.
  writeTree(root, {
    'dist/bundle.js': 'built\n',
    'node_modules/pkg/index.js': 'module.exports = 1;\n',
    'debug.log': 'log\n',
  });
  // A nested repository with its own history.
  writeTree(root, { 'vendor/lib/index.js': 'nested\n' });
  git(join(root, 'vendor/lib'), ['init', '-q', '-b', 'main']);
  git(join(root, 'vendor/lib'), ['add', '-A']);
  git(join(root, 'vendor/lib'), ['commit', '-q', '-m', 'nested']);
  return root;
}

import { execFileSync } from 'node:child_process';
import { promises as fs, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, git, gitManifest, makeWorkspace, writeTree } from '../../../../test/helpers';
import { listing, openTemp, treeListing } from './testSupport';

afterAll(cleanupTempDirs);

/** A user repo with a nested repo, a worktree-style `.git` file and a real submodule. */
function richWorkspace(): string {
  const root = makeWorkspace(
    {
      'README.md': '# demo\n',
      'src/index.ts': 'export {};\n',
      'bin/tool': { content: '#!/bin/sh\necho tool\n', mode: 0o755 },
      'build/out.txt': 'kept\n',
      'vendor/lib.c': 'int x;\n',
      'package-lock.json': '{}\n',
      'dist/bundle.js': 'ignored\n',
      'node_modules/dep/index.js': 'x\n',
      'sub/node_modules/x.js': 'x\n',
      '.env': 'SECRET=1\n',
      '.env.local': 'SECRET=2\n',
      'config/.env.production': 'SECRET=3\n',
      '.env.example': 'SECRET=\n',
      'img.bin': Buffer.from([0, 1, 2, 0, 255]),
      'ünï cödé.txt': 'unicode\n',
      '"quoted" name.txt': 'q\n',
      'tab\tname.txt': 't\n',
      'new\nline.txt': 'n\n',
      '-leading-dash.txt': 'd\n',
      'link-in': { symlink: 'README.md' },
      'link-out': { symlink: '/etc/passwd' },
      'link-dir': { symlink: 'src' },
    },
    { userGit: true },
  );
  writeFileSync(path.join(root, '.gitignore'), 'ignored-by-user.log\ndist/\n!.env.local\n');
  // nested repository with its own ignore file and a commit
  mkdirSync(path.join(root, 'nested/deep'), { recursive: true });
  git(path.join(root, 'nested'), ['init', '-q']);
  writeTree(path.join(root, 'nested'), {
    'a.txt': 'nested a\n',
    'deep/b.txt': 'nested b\n',
    '.gitignore': '*.tmp\n',
    'junk.tmp': 'ignored inside nested\n',
    'inner/.git/HEAD': 'not a real repo\n',
    'inner/c.txt': 'c\n',
  });
  git(path.join(root, 'nested'), ['add', 'a.txt']);
  git(path.join(root, 'nested'), ['commit', '-q', '-m', 'n']);
  // a linked worktree of the user's repo: its .git is a file
  git(root, ['worktree', 'add', '-q', path.join(root, 'wt'), 'feature']);
  return root;
}

describe('snapshotTree: what a checkpoint captures', () => {
  it('captures exactly the non-excluded files, symlinks as links, exec bits, nested repos without their .git', async () => {
    const root = richWorkspace();
    const { repo } = await openTemp(root);
    const { tree, notCaptured } = await repo.snapshotTree();
    const files = await treeListing(repo, tree);
    const names = [...files.keys()];

    for (const p of [
      'README.md',
      'src/index.ts',
      'build/out.txt',
      'vendor/lib.c',
      'package-lock.json',
      '.env.example',
      'img.bin',
      'ünï cödé.txt',
      '"quoted" name.txt',
      'tab\tname.txt',
      'new\nline.txt',
      '-leading-dash.txt',
      'untracked.txt',
      'src/staged.ts',
      '.gitignore',
      'nested/a.txt',
      'nested/deep/b.txt',
      'nested/.gitignore',
      'nested/inner/c.txt',
      'wt/README.md',
    ])
      expect(names, p).toContain(p);
    expect(files.get('bin/tool')).toBe('100755');
    expect(files.get('README.md')).toBe('100644');
    expect(files.get('link-in')).toBe('120000');
    expect(files.get('link-out')).toBe('120000');
    expect(files.get('link-dir')).toBe('120000');
    expect(names.filter((n) => n.startsWith('link-dir/'))).toEqual([]);
    for (const n of names) {
      expect(
        n.split('/').some((s) => s.toLowerCase() === '.git'),
        n,
      ).toBe(false);
      expect(n.includes('node_modules'), n).toBe(false);
      expect(/(^|\/)\.env(\.(?!example$)[^/]*)?$/.test(n), n).toBe(false);
      expect(n.startsWith('dist/'), n).toBe(false);
    }
    expect(names).not.toContain('ignored-by-user.log');
    expect(names).not.toContain('nested/junk.tmp');
    expect(notCaptured).toEqual([]);
    // symlink stored as its target bytes, not followed
    expect((await repo.readFile(tree, 'link-out'))!.bytes.toString()).toBe('/etc/passwd');
    expect((await repo.readFile(tree, 'img.bin'))!.bytes).toEqual(Buffer.from([0, 1, 2, 0, 255]));
  });

  it('leaves every byte of every .git alone and creates nothing in the folder (I1, I2)', async () => {
    const root = richWorkspace();
    git(root, ['-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', path.join(root, 'nested'), 'mod']);
    const beforeGit = gitManifest(root);
    const beforeList = await listing(root);
    const { repo } = await openTemp(root);
    const first = await repo.snapshotTree();
    writeFileSync(path.join(root, 'nested/a.txt'), 'changed\n');
    writeFileSync(path.join(root, 'mod/new.txt'), 'in submodule\n');
    const second = await repo.snapshotTree();
    const files = await treeListing(repo, second.tree);
    expect(files.has('mod/new.txt')).toBe(true);
    expect(files.has('mod/a.txt')).toBe(true);
    expect(files.has('.gitmodules')).toBe(true);
    expect(first.tree).not.toBe(second.tree);
    expect(gitManifest(root)).toEqual(beforeGit);
    const afterList = (await listing(root)).filter((l) => !/^(nested\/a\.txt|mod\/new\.txt|mod|nested) /.test(l));
    expect(afterList).toEqual(beforeList.filter((l) => !/^(nested\/a\.txt|mod\/new\.txt|mod|nested) /.test(l)));
    // user's git still sees the same status
    expect(git(root, ['status', '--porcelain'])).toContain('A  src/staged.ts');
  });

  it('updates incrementally: modify, add, delete, rename, chmod, symlink retarget, file↔dir', async () => {
    const root = makeWorkspace({
      'a.txt': 'a\n',
      'b.txt': 'b\n',
      'x.sh': 'echo\n',
      l: { symlink: 'a.txt' },
      'd/f': 'f\n',
    });
    const { repo } = await openTemp(root);
    const t1 = (await repo.snapshotTree()).tree;
    writeFileSync(path.join(root, 'a.txt'), 'a2\n');
    await fs.rm(path.join(root, 'b.txt'));
    await fs.rename(path.join(root, 'x.sh'), path.join(root, 'y.sh'));
    await fs.chmod(path.join(root, 'y.sh'), 0o755);
    await fs.rm(path.join(root, 'l'));
    await fs.symlink('y.sh', path.join(root, 'l'));
    await fs.rm(path.join(root, 'd'), { recursive: true });
    writeFileSync(path.join(root, 'd'), 'now a file\n');
    writeFileSync(path.join(root, 'c.txt'), 'c\n');
    const t2 = (await repo.snapshotTree()).tree;
    const files = await treeListing(repo, t2);
    expect([...files.keys()].sort()).toEqual(['a.txt', 'c.txt', 'd', 'l', 'y.sh']);
    expect(files.get('y.sh')).toBe('100755');
    expect((await repo.readFile(t2, 'l'))!.bytes.toString()).toBe('y.sh');
    expect((await repo.readFile(t2, 'a.txt'))!.bytes.toString()).toBe('a2\n');
    // and back: file → dir
    await fs.rm(path.join(root, 'd'));
    writeTree(root, { 'd/g': 'g\n' });
    const t3 = (await repo.snapshotTree()).tree;
    expect((await treeListing(repo, t3)).has('d/g')).toBe(true);
    // no change → same tree
    expect((await repo.snapshotTree()).tree).toBe(t3);
    // a file changed without a size change within the same second is still seen (racy-git safe)
    writeFileSync(path.join(root, 'c.txt'), 'C\n');
    expect((await repo.readFile((await repo.snapshotTree()).tree, 'c.txt'))!.bytes.toString()).toBe('C\n');
    expect(t1).not.toBe(t2);
  });

  it('honours .retraceignore and rule changes, and a negation cannot pull secrets in', async () => {
    const root = makeWorkspace({ 'keep.txt': 'k\n', 'logs/a.log': 'l\n', 'gen/x.js': 'x\n', '.env.local': 's\n' });
    writeFileSync(path.join(root, '.gitignore'), '!.env.local\n!node_modules/\n');
    writeTree(root, { 'node_modules/m.js': 'm\n' });
    const { repo } = await openTemp(root);
    let names = [...(await treeListing(repo, (await repo.snapshotTree()).tree)).keys()];
    expect(names).toContain('logs/a.log');
    expect(names).not.toContain('.env.local');
    expect(names).not.toContain('node_modules/m.js');
    writeFileSync(path.join(root, '.retraceignore'), 'logs/\n');
    names = [...(await treeListing(repo, (await repo.snapshotTree()).tree)).keys()];
    expect(names).not.toContain('logs/a.log');
    expect(names).toContain('.retraceignore');
    // a .gitignore change drops files captured before
    writeFileSync(path.join(root, '.gitignore'), 'gen/\n');
    names = [...(await treeListing(repo, (await repo.snapshotTree()).tree)).keys()];
    expect(names).not.toContain('gen/x.js');
    expect(names).toContain('keep.txt');
  });

  it("leaves direnv's .envrc out like .env, also when .gitignore negates it and on the hinted path", async () => {
    const root = makeWorkspace({ 'keep.txt': 'k\n', '.envrc': 'export API_KEY=1\n', 'sub/.envrc': 'export T=2\n' });
    writeFileSync(path.join(root, '.gitignore'), '!.envrc\n');
    const { repo } = await openTemp(root);
    const full = [...(await treeListing(repo, (await repo.snapshotTree()).tree)).keys()];
    expect(full).toContain('keep.txt');
    expect(full.filter((n) => n.endsWith('.envrc'))).toEqual([]);
    writeFileSync(path.join(root, '.envrc'), 'export API_KEY=changed\n');
    mkdirSync(path.join(root, 'new'));
    writeFileSync(path.join(root, 'new/.envrc'), 'export K=3\n');
    const hinted = await repo.snapshotTree({ hintPaths: ['.envrc', 'new/.envrc'] });
    expect([...(await treeListing(repo, hinted.tree)).keys()].filter((n) => n.endsWith('.envrc'))).toEqual([]);
  });

  it('reports oversized files instead of dropping them silently', async () => {
    const root = makeWorkspace({ 'small.txt': 'x\n', 'big.bin': Buffer.alloc(2048, 1) });
    const { repo } = await openTemp(root, 1024);
    const first = await repo.snapshotTree();
    expect(first.notCaptured).toEqual([{ path: 'big.bin', reason: 'too-large', size: 2048 }]);
    expect((await treeListing(repo, first.tree)).has('big.bin')).toBe(false);
    // reported again next time, and a small file that grows past the cap leaves the checkpoint
    writeFileSync(path.join(root, 'small.txt'), Buffer.alloc(4096, 2));
    const second = await repo.snapshotTree();
    expect(second.notCaptured.map((n) => n.path)).toEqual(['big.bin', 'small.txt']);
    expect((await treeListing(repo, second.tree)).has('small.txt')).toBe(false);
  });

  it('ignores inherited GIT_* variables pointing at the user repo', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' }, { userGit: true });
    const before = gitManifest(root);
    const saved = { ...process.env };
    process.env.GIT_DIR = path.join(root, '.git');
    process.env.GIT_INDEX_FILE = path.join(root, '.git', 'index');
    process.env.GIT_WORK_TREE = root;
    try {
      const { repo } = await openTemp(root);
      const { tree } = await repo.snapshotTree();
      expect((await treeListing(repo, tree)).has('a.txt')).toBe(true);
    } finally {
      process.env = saved;
    }
    expect(gitManifest(root)).toEqual(before);
    expect(execFileSync('git', ['-C', root, 'stash', 'list'], { encoding: 'utf8' })).toContain('wip');
  });
});

/**
 * A checkpoint that syncs once (record.ts: git's fsyncs off, the commit and the journal unsynced, one syncfs
 * right before the log line) must record exactly what git records and what the per-file path records: each
 * checkpoint's tree is compared with `git add -A && git write-tree` of the same folder in a plain repository
 * (with the shadow's ignore rules), and with a second data home where RETRACE_SYNCFS=0 makes every write sync
 * itself, across renames, mode changes, symlinks, ignored files and odd names. The objects it wrote unsynced
 * are all there and whole (git fsck). The order of the syncs is test/reliability/durability.test.ts's.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  mkdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, fsck, gitAt, makeWorkspace, tempDir } from '../../../test/helpers';
import { canSyncFileSystem, syncFileSystemsOf } from './syncFs';
import { resolveWorkspace } from './workspace';
import { WorkspaceEngine } from './workspaceEngine';

afterAll(cleanupTempDirs);
afterEach(() => {
  delete process.env.RETRACE_SYNCFS;
});

const hasSyncfs = process.platform === 'linux' && spawnSync('sync', ['-f', '/']).status === 0;
/** Checkpoints one data home, with the whole-file-system sync or with a sync per written file. */
async function engineFor(
  root: string,
  syncfs: boolean,
): Promise<{ checkpoint: () => Promise<string>; gitDir: string }> {
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempDir('retrace-home-') }));
  const gitDir = (await engine.shadow()).gitDir;
  return {
    gitDir,
    checkpoint: async () => {
      if (syncfs) delete process.env.RETRACE_SYNCFS;
      else process.env.RETRACE_SYNCFS = '0';
      const { hash } = await engine.checkpoint({ session: 's' });
      return gitAt(gitDir, ['rev-parse', `${hash!}^{tree}`]).trim();
    },
  };
}

describe('a checkpoint that syncs once records what git records', () => {
  it.skipIf(!hasSyncfs)('same trees as git add -A + write-tree and as the per-file path, objects whole', async () => {
    const root = makeWorkspace({
      'README.md': '# demo\n',
      'src/a.ts': 'export const a = 1;\n',
      'bin/tool.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 },
      'link-readme': { symlink: 'README.md' },
      '.gitignore': '*.log\nbuild/\n',
      'run.log': 'ignored\n',
      'build/out.js': 'ignored\n',
      'ünï cödé/naïve.txt': 'unicode\n',
      'tab\tname.txt': 't\n',
      '"quoted" name.txt': 'q\n',
      'new\nline.txt': 'n\n',
      [`deep/${'x'.repeat(150)}.txt`]: 'long\n',
    });
    const once = await engineFor(root, true);
    const perFile = await engineFor(root, false);
    const plain = path.join(tempDir('retrace-plain-'), 'plain.git');
    gitAt(plain, ['init', '-q', '--bare']);
    const gitTree = (): string => {
      // The shadow's ignore rules (its info/exclude: defaults + .retraceignore) apply to the plain repository too.
      copyFileSync(path.join(once.gitDir, 'info', 'exclude'), path.join(plain, 'info', 'exclude'));
      gitAt(plain, [`--work-tree=${root}`, '-c', 'core.bare=false', 'add', '-A']);
      return gitAt(plain, [`--work-tree=${root}`, '-c', 'core.bare=false', 'write-tree']).trim();
    };
    const same = async (): Promise<string> => {
      const tree = await once.checkpoint();
      expect(tree).toBe(gitTree());
      expect(await perFile.checkpoint()).toBe(tree);
      return tree;
    };

    const first = await same();
    // Renames, mode changes both ways, a symlink retargeted and a new one to a folder, content, a deletion,
    // new ignored files, a new deep folder.
    renameSync(path.join(root, 'src/a.ts'), path.join(root, 'src/b.ts'));
    chmodSync(path.join(root, 'README.md'), 0o755);
    chmodSync(path.join(root, 'bin/tool.sh'), 0o644);
    unlinkSync(path.join(root, 'link-readme'));
    symlinkSync('src/b.ts', path.join(root, 'link-readme'));
    symlinkSync('src', path.join(root, 'link-src'));
    appendFileSync(path.join(root, 'ünï cödé/naïve.txt'), 'more\n');
    rmSync(path.join(root, 'tab\tname.txt'));
    writeFileSync(path.join(root, 'more.log'), 'ignored\n');
    writeFileSync(path.join(root, 'build/new.js'), 'ignored\n');
    mkdirSync(path.join(root, 'deep/a/b'), { recursive: true });
    writeFileSync(path.join(root, 'deep/a/b/c.txt'), 'c\n');
    const second = await same();
    expect(second).not.toBe(first);
    expect(await same(), 'a checkpoint with no change names the same tree').toBe(second);

    // Every object the syncfs path wrote without a sync of its own is in place and whole.
    const checked = fsck(once.gitDir);
    expect(checked.ok, checked.output).toBe(true);
  });
});

describe('syncFs: the whole-file-system sync', () => {
  it.skipIf(!hasSyncfs)('works here, once per file system, and RETRACE_SYNCFS=0 turns it off', async () => {
    const a = tempDir('retrace-sync-');
    const b = tempDir('retrace-sync-');
    expect(await syncFileSystemsOf([a])).toBe(true);
    expect(await syncFileSystemsOf([a, b, path.join(a, 'absent')])).toBe(true);
    expect(await canSyncFileSystem(a)).toBe(true);
    process.env.RETRACE_SYNCFS = '0';
    expect(await syncFileSystemsOf([a])).toBe(false);
    expect(await canSyncFileSystem(a), 'checkpoints then sync file by file').toBe(false);
  });
});

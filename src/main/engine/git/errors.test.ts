/**
 * What a git failure says: the subcommand that failed (not the first `-c` value of the runner's prefix), and a
 * workspace folder deleted while open is E_NOT_FOUND naming it, not "git is not installed".
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { RetraceError, toErrorInfo } from '../../../shared/errors';
import { resolveWorkspace } from '../workspace';
import { WorkspaceEngine } from '../workspaceEngine';
import { GitError, gitSubcommand, toRetraceError } from './errors';
import { initShadowRepo } from './init';
import { ObjectReader } from './objectReader';
import { GitRunner } from './runner';

afterAll(cleanupTempDirs);

async function runnerOver(workTree: string): Promise<GitRunner> {
  const dir = tempDir('retrace-git-');
  const gitDir = path.join(dir, 'shadow.git');
  const hooksDir = path.join(dir, 'empty');
  await initShadowRepo(gitDir, hooksDir);
  return new GitRunner({ gitDir, workTree, hooksDir });
}

describe('git failures name the git command', () => {
  it('gitSubcommand skips global options and their values', () => {
    expect(gitSubcommand(['-c', 'core.autocrlf=false', '--git-dir=/x', 'read-tree', 'abc'])).toBe('read-tree');
    expect(gitSubcommand(['--literal-pathspecs', '-C', '/tmp', '--no-pager', 'ls-files', '-z'])).toBe('ls-files');
    expect(gitSubcommand(['cat-file', '-t', 'x'])).toBe('cat-file');
    expect(gitSubcommand(['-c', 'a=b'])).toBe('');
  });

  it('exec (stdin/bytes path) and raw (simple-git path): "git read-tree failed: …"', async () => {
    const git = await runnerOver(tempDir('retrace-ws-'));
    const missing = '0123456789abcdef0123456789abcdef01234567';
    const viaExec = await git.exec(['read-tree', missing]).catch((e: unknown) => e);
    expect(viaExec).toBeInstanceOf(GitError);
    expect((viaExec as GitError).message).toMatch(/^git read-tree failed: fatal: /);
    const viaRaw = await git.raw(['rev-parse', '--verify', `${missing}^{commit}`]).catch((e: unknown) => e);
    expect((viaRaw as GitError).message).toMatch(/^git rev-parse failed: /);
    expect(toRetraceError(viaExec).message).not.toContain('core.autocrlf');
  });
});

describe('a workspace folder deleted while open', () => {
  it('the runner says the folder is gone (E_NOT_FOUND naming it), not that git is missing', async () => {
    const ws = tempDir('retrace-ws-');
    const git = await runnerOver(ws);
    rmSync(ws, { recursive: true });
    const reader = ObjectReader.open(git);
    const calls = [
      () => git.exec(['ls-files', '-z']),
      () => git.raw(['ls-files', '-z']),
      () => reader.read('0123456789abcdef0123456789abcdef01234567'),
    ];
    for (const call of calls) {
      const err = toRetraceError(await call().catch((e: unknown) => e));
      expect(err).toBeInstanceOf(RetraceError);
      expect(toErrorInfo(err)).toEqual({ code: 'E_NOT_FOUND', message: `folder does not exist: ${ws}` });
    }
  });

  it('a checkpoint of an open engine whose folder was deleted: E_NOT_FOUND naming the folder', async () => {
    const root = tempDir('retrace-ws-');
    mkdirSync(path.join(root, 'src'));
    writeFileSync(path.join(root, 'src', 'a.txt'), 'a\n');
    const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempDir('retrace-home-') }));
    await engine.checkpoint();
    rmSync(root, { recursive: true });
    const info = toErrorInfo(await engine.checkpoint().catch((e: unknown) => e));
    expect(info.code).toBe('E_NOT_FOUND');
    expect(info.message).toContain(root);
  });

  it('git really missing is still E_GIT_MISSING', async () => {
    const ws = tempDir('retrace-ws-');
    const git = await runnerOver(ws);
    const saved = process.env.PATH;
    process.env.PATH = '';
    try {
      // A fresh runner captures the environment at construction.
      const bare = new GitRunner({ gitDir: git.gitDir, workTree: ws, hooksDir: ws });
      const err = toRetraceError(await bare.exec(['ls-files']).catch((e: unknown) => e));
      expect(err.code).toBe('E_GIT_MISSING');
    } finally {
      process.env.PATH = saved;
    }
  });
});

/**
 * The profiles' set-up (restoreProfile.ts, checkpointProfile.ts): one generated tree copied twice, Retrace on one
 * copy through the service the app calls, raw git on the other with a repository of its own, both at the same
 * first commit.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateTree, type GeneratedTree } from './generate';
import { RetraceClient } from './methods/retraceClient';

export interface SideBySide {
  tree: GeneratedTree;
  dir: string;
  /** Retrace's copy, and its client. */
  ours: string;
  client: RetraceClient;
  /** Raw git's copy, and git run on it. */
  theirs: string;
  git: (...args: string[]) => string;
  /** `add -A` + `commit` on raw git's copy: the new commit's id. */
  commitAll: () => string;
}

export async function sideBySide(files: number, prefix: string): Promise<SideBySide> {
  const tree = await generateTree({ files, seed: 42, sizeScale: 1 }, (l) => process.stderr.write(l + '\n'));
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const ours = path.join(dir, 'ours');
  const theirs = path.join(dir, 'git');
  cpSync(tree.root, ours, { recursive: true, verbatimSymlinks: true });
  cpSync(tree.root, theirs, { recursive: true, verbatimSymlinks: true });
  const gitEnv = { ...process.env, GIT_DIR: path.join(dir, 'raw.git'), GIT_WORK_TREE: theirs };
  const git = (...a: string[]): string => execFileSync('git', a, { env: gitEnv }).toString().trim();
  git('init', '-q');
  git('config', 'user.email', 'b@b');
  git('config', 'user.name', 'b');
  const commitAll = (): string => {
    git('add', '-A');
    git('commit', '-q', '--allow-empty', '-m', 'c', '--no-verify');
    return git('rev-parse', 'HEAD');
  };
  const client = await RetraceClient.open({ root: ours, dataHome: path.join(dir, 'home') });
  return { tree, dir, ours, client, theirs, git, commitAll };
}

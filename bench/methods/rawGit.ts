/**
 * Baseline (a): plain git with a shadow git dir — the floor for what a git-backed checkpoint can cost.
 * checkpoint = `git add -A` + `git commit --allow-empty` (allow-empty so a no-change checkpoint is a commit,
 * as ours is); restore = `read-tree -m -u <target>` (index and files to the target, only differing paths
 * written, removed paths deleted) + `checkout-index -a -f` (any path still not matching is written).
 * Caveat, in plain git's favour: `git add -A` stores a nested repository as a gitlink, not its files.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { TREE_OPERATIONS, type BenchMethod } from './types';
import { ShadowGit } from './gitBaseline';

export class RawGitMethod implements BenchMethod {
  readonly name = 'raw-git' as const;
  readonly operations = TREE_OPERATIONS;
  private readonly repo: ShadowGit;
  private beforeRestore: string | null = null;

  constructor(
    readonly root: string,
    private readonly storeDir: string,
  ) {
    this.repo = new ShadowGit(path.join(storeDir, 'raw.git'), root);
  }

  reset(): Promise<void> {
    return this.repo.init();
  }

  async checkpoint(): Promise<void> {
    this.repo.git(['add', '-A']);
    this.repo.git(['commit', '-q', '--allow-empty', '--no-verify', '-m', 'checkpoint']);
  }

  async checkpointId(back: number): Promise<string> {
    return this.repo.rev(`HEAD~${back}`);
  }

  async diffSummary(from: string, to: string): Promise<number> {
    return this.repo.diffSummary(from, to);
  }

  async fileContents(from: string, to: string, rel: string): Promise<void> {
    this.repo.git(['cat-file', '--batch'], { input: `${from}:${rel}\n${to}:${rel}\n` });
  }

  async restore(target: string): Promise<void> {
    this.beforeRestore = this.repo.rev('HEAD');
    this.repo.git(['read-tree', '-m', '-u', target]);
    this.repo.git(['checkout-index', '-a', '-f']);
  }

  async undo(): Promise<void> {
    if (!this.beforeRestore) throw new Error('raw-git: nothing to undo');
    this.repo.git(['read-tree', '-m', '-u', this.beforeRestore]);
    this.repo.git(['checkout-index', '-a', '-f']);
  }

  storeBytes(): Promise<number> {
    return this.repo.bytes();
  }

  async dispose(): Promise<void> {
    await rm(this.storeDir, { recursive: true, force: true });
  }
}

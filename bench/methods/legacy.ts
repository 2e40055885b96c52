/**
 * Baseline (b): the legacy shadow-git checkpoint as existing agent tools do it — find nested `.git`
 * directories, rename them away so `git add` descends into those repositories, `git add . --ignore-errors`,
 * `git commit --allow-empty --no-verify`, rename them back; restore = `git reset --hard <commit>`.
 * It renames inside the user's folder (what I1/I2 forbid); it is here only to be measured.
 * The scan uses find(1), faster than the JavaScript glob such tools use, so this baseline is if anything flattered.
 */
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../proc';
import { TREE_OPERATIONS, type BenchMethod } from './types';
import { ShadowGit } from './gitBaseline';

const DISABLED = '.git_disabled';

export class LegacyMethod implements BenchMethod {
  readonly name = 'legacy' as const;
  readonly operations = TREE_OPERATIONS;
  private readonly repo: ShadowGit;
  private beforeRestore: string | null = null;

  constructor(
    readonly root: string,
    private readonly storeDir: string,
  ) {
    this.repo = new ShadowGit(path.join(storeDir, 'legacy.git'), root);
  }

  async reset(): Promise<void> {
    await this.repo.init();
    // Such tools write their own exclude list; node_modules is the part that matters for this tree.
    this.repo.git(['config', 'core.excludesFile', '/dev/null']);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(this.repo.gitDir, 'info', 'exclude'), 'node_modules/\n');
  }

  async checkpoint(): Promise<void> {
    const found = run('find', [this.root, '-mindepth', '2', '-name', '.git', '-type', 'd'])
      .stdout.toString()
      .split('\n')
      .filter(Boolean);
    for (const dir of found) await rename(dir, path.join(path.dirname(dir), DISABLED));
    try {
      this.repo.git(['add', '.', '--ignore-errors'], { ok: [0, 1] });
      this.repo.git(['commit', '-q', '--allow-empty', '--no-verify', '-m', 'checkpoint']);
    } finally {
      for (const dir of found) await rename(path.join(path.dirname(dir), DISABLED), dir);
    }
  }

  async checkpointId(back: number): Promise<string> {
    return this.repo.rev(`HEAD~${back}`);
  }

  async diffSummary(from: string, to: string): Promise<number> {
    return this.repo.diffSummary(from, to);
  }

  async fileContents(from: string, to: string, rel: string): Promise<void> {
    this.repo.git(['show', `${from}:${rel}`]);
    this.repo.git(['show', `${to}:${rel}`]);
  }

  async restore(target: string): Promise<void> {
    this.beforeRestore = this.repo.rev('HEAD');
    this.repo.git(['reset', '-q', '--hard', target]);
  }

  async undo(): Promise<void> {
    if (!this.beforeRestore) throw new Error('legacy: nothing to undo');
    this.repo.git(['reset', '-q', '--hard', this.beforeRestore]);
  }

  storeBytes(): Promise<number> {
    return this.repo.bytes();
  }

  async dispose(): Promise<void> {
    await rm(this.storeDir, { recursive: true, force: true });
  }
}

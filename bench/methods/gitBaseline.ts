/**
 * The two git baselines share a shadow repository layout (a --git-dir outside the tree, the tree as
 * --work-tree) and an environment: no user or system config, a fixed identity, and auto-gc off so a
 * background gc never lands inside a timed run.
 */
import { mkdir, rm } from 'node:fs/promises';
import { isolatedGitEnv, run, type RunResult } from '../proc';

export function baselineEnv(gitDir: string, workTree: string): NodeJS.ProcessEnv {
  return { ...isolatedGitEnv(), GIT_DIR: gitDir, GIT_WORK_TREE: workTree };
}

export class ShadowGit {
  constructor(
    readonly gitDir: string,
    readonly workTree: string,
  ) {}

  git(args: string[], opts: { input?: string; ok?: number[] } = {}): RunResult {
    return run('git', ['-c', 'gc.auto=0', ...args], {
      cwd: this.workTree,
      env: baselineEnv(this.gitDir, this.workTree),
      ...opts,
    });
  }

  async init(): Promise<void> {
    await rm(this.gitDir, { recursive: true, force: true });
    await mkdir(this.gitDir, { recursive: true });
    this.git(['init', '-q']);
  }

  rev(spec: string): string {
    return this.git(['rev-parse', '--verify', spec]).stdout.toString().trim();
  }

  /** Name-status and numstat of a step, in one diff-tree call. */
  diffSummary(from: string, to: string): number {
    const out = this.git(['diff-tree', '-r', '-z', '-M', '--raw', '--numstat', from, to]).stdout;
    return out.toString('latin1').split('\0:').length;
  }

  async bytes(): Promise<number> {
    const out = this.git(['count-objects', '-v']).stdout.toString();
    const kib = (key: string): number => Number(new RegExp(`^${key}: (\\d+)`, 'm').exec(out)?.[1] ?? 0);
    return (kib('size') + kib('size-pack')) * 1024;
  }
}

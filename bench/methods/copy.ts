/**
 * Baseline (c): a plain recursive copy of the tree per checkpoint (`cp -a`, every file, .git included);
 * restore = remove the tree and copy the checkpoint back. Keeps the newest 12 copies to bound disk use.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../proc';
import type { BenchMethod, Operation } from './types';

const KEEP = 12;

export class CopyMethod implements BenchMethod {
  readonly name = 'copy' as const;
  readonly operations: readonly Operation[] = [
    'first-checkpoint',
    'incremental-checkpoint',
    'no-change-checkpoint',
    'restore',
    'undo',
  ];
  private copies: string[] = [];
  private counter = 0;
  private beforeRestore: string | null = null;

  constructor(
    readonly root: string,
    private readonly storeDir: string,
  ) {}

  async reset(): Promise<void> {
    await rm(this.storeDir, { recursive: true, force: true });
    await mkdir(this.storeDir, { recursive: true });
    this.copies = [];
  }

  async checkpoint(): Promise<void> {
    const dest = path.join(this.storeDir, String(this.counter++));
    run('cp', ['-a', this.root, dest]);
    this.copies.push(dest);
  }

  /** Drop copies beyond the newest KEEP (the runner calls this outside the timed region). */
  async prune(): Promise<void> {
    while (this.copies.length > KEEP) await rm(this.copies.shift()!, { recursive: true, force: true });
  }

  async checkpointId(back: number): Promise<string> {
    // A restore costs the same whichever copy it takes: clamp to the oldest kept.
    const id = this.copies[Math.max(0, this.copies.length - 1 - back)];
    if (!id) throw new Error(`copy: no checkpoint ${back} back`);
    return id;
  }

  async diffSummary(): Promise<number> {
    throw new Error('copy: no diff');
  }

  async fileContents(): Promise<void> {
    throw new Error('copy: no file contents');
  }

  private copyBack(from: string): void {
    run('rm', ['-rf', this.root]);
    run('cp', ['-a', from, this.root]);
  }

  async restore(target: string): Promise<void> {
    this.beforeRestore = await this.checkpointId(0);
    this.copyBack(target);
  }

  async undo(): Promise<void> {
    if (!this.beforeRestore) throw new Error('copy: nothing to undo');
    this.copyBack(this.beforeRestore);
  }

  async storeBytes(): Promise<number> {
    const out = run('du', ['-sb', this.storeDir]).stdout.toString();
    return Number(out.split('\t')[0]);
  }

  async dispose(): Promise<void> {
    await rm(this.storeDir, { recursive: true, force: true });
  }
}

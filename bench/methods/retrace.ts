/**
 * Retrace as a benchmarked method. "retrace" is the cold path: the snapshot is told nothing and checks the
 * whole tree. "retrace-warm" passes the paths the caller knows changed (what the app's watcher or a hook's
 * tool input supplies). Timed runs call the engine in this process; while a peak-RSS probe is active the same
 * operation runs in a separate process (bench/probe.ts) under GNU time instead.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { probe, run } from '../proc';
import type { ProbeRequest } from '../probe';
import { RetraceClient } from './retraceClient';
import { TREE_OPERATIONS, type BenchMethod, type MethodName, type Operation } from './types';

export class RetraceMethod implements BenchMethod {
  readonly operations: readonly Operation[];
  readonly dataHome: string;
  private client: RetraceClient | null = null;
  private hashes: string[] = [];

  constructor(
    readonly name: Extract<MethodName, 'retrace' | 'retrace-warm'>,
    readonly root: string,
    private readonly storeDir: string,
    private readonly probeScript: string,
  ) {
    this.dataHome = path.join(storeDir, 'home');
    this.operations = name === 'retrace' ? TREE_OPERATIONS : ['incremental-checkpoint', 'no-change-checkpoint'];
  }

  private get warm(): boolean {
    return this.name === 'retrace-warm';
  }

  async open(): Promise<RetraceClient> {
    this.client ??= await RetraceClient.open({ root: this.root, dataHome: this.dataHome });
    return this.client;
  }

  /** Runs one operation in the probe process; its answer as JSON. */
  private probeRun(req: Omit<ProbeRequest, 'root' | 'dataHome'>): unknown {
    const full: ProbeRequest = { root: this.root, dataHome: this.dataHome, ...req };
    const out = run(process.execPath, [this.probeScript, JSON.stringify(full)]).stdout.toString();
    return (JSON.parse(out.trim().split('\n').pop()!) as { answer: unknown }).answer;
  }

  async reset(): Promise<void> {
    this.client = null;
    this.hashes = [];
    // Retried: maintenance scheduled after the last checkpoint may still be writing into the store (ENOTEMPTY).
    await rm(this.storeDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }

  async checkpoint(changed: string[] | null): Promise<void> {
    const hint = this.warm ? (changed ?? []) : null;
    const hash = probe.active
      ? (this.probeRun({ op: 'checkpoint', hintPaths: hint }) as string)
      : await (await this.open()).checkpoint(hint);
    this.hashes.push(hash);
  }

  async checkpointId(back: number): Promise<string> {
    const id = this.hashes[this.hashes.length - 1 - back];
    if (!id) throw new Error(`${this.name}: no checkpoint ${back} back`);
    return id;
  }

  async diffSummary(from: string, to: string): Promise<number> {
    if (probe.active) return this.probeRun({ op: 'diff-summary', from, to }) as number;
    return (await this.open()).diffSummary(from, to);
  }

  async fileContents(from: string, to: string, rel: string): Promise<void> {
    if (probe.active) this.probeRun({ op: 'file-contents', from, to, path: rel });
    else await (await this.open()).fileContents(from, to, rel);
  }

  async restore(target: string): Promise<void> {
    if (probe.active) this.probeRun({ op: 'restore', target });
    else await (await this.open()).restore(target);
  }

  async undo(): Promise<void> {
    if (probe.active) this.probeRun({ op: 'undo' });
    else await (await this.open()).undo();
  }

  async timelinePage(session: string): Promise<number> {
    if (probe.active) return this.probeRun({ op: 'timeline-page', session }) as number;
    return (await this.open()).timelinePage(session);
  }

  async storeBytes(): Promise<number> {
    return (await this.open()).storeBytes();
  }

  async dispose(): Promise<void> {
    this.client = null;
    // Retried: maintenance scheduled after the last checkpoint may still be writing into the store (ENOTEMPTY).
    await rm(this.storeDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}

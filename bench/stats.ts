/** The result shape of bench/results/latest.json (fixed by issue 5) and small statistics helpers. */
import type { FollowResult } from './liveFollow';
import type { TargetRow } from './targets';
import type { MethodName, Operation } from './methods/types';

export interface MachineInfo {
  cpu: string;
  cores: number;
  ramBytes: number;
  os: string;
  node: string;
  git: string;
  fs: string;
  /** The commit of this repository that was measured (+ "-dirty" when the engine had local changes). */
  commit: string;
  /** 1/5/15-minute load averages when the run started and ended (other work on the machine skews timings). */
  loadAverage: { start: number[]; end: number[] };
}

export interface RunRow {
  files: number;
  operation: Operation;
  method: MethodName;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Nearest-rank 95th percentile of the timed runs (the hook's target is a tail: ≤ 60 ms p95). */
  p95Ms?: number;
  peakRssBytes: number;
  /** Git processes the operation started and fsyncs it made, counted in its probe run (processCount.ts). */
  gitProcesses?: number;
  fsyncs?: number;
}

export interface StorageRow {
  files: number;
  checkpoints: number;
  storeBytes: number;
  packedCopyBytes: number;
}

export interface BenchResults {
  machine: MachineInfo;
  runs: RunRow[];
  storage: StorageRow[];
  /** Issue 15 item 6: one appended message among 100 long sessions (bench/liveFollow.ts). */
  follow?: FollowResult;
  /** Every target with its measured value and met/missed (bench/targets.ts). */
  targets?: TargetRow[];
  /** What the file system alone charges for the restore's writes, per rung of the guarantees (bench/fsFloor.ts). */
  floor?: FloorRow[];
}

/** The rungs of a restore's writes, each adding a guarantee to the one before (bench/fsFloor.ts). */
export type FloorRung = 'replace' | 'atomic' | 'durable' | 'kept' | 'reused';

export interface FloorRow {
  files: number;
  /** Paths written each way (the bench restore's) and their bytes. */
  paths: number;
  bytes: number;
  /** Median milliseconds per rung. */
  ms: Record<FloorRung, number>;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const round1 = (x: number): number => Math.round(x * 10) / 10;

/** Nearest-rank percentile (p in 0–100). */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** The result shape of bench/results/latest.json (fixed by issue 5) and small statistics helpers. */
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
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const round1 = (x: number): number => Math.round(x * 10) / 10;

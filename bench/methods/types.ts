/** What every benchmarked method implements; the runner times these calls and nothing around them. */
export type MethodName = 'retrace' | 'retrace-warm' | 'raw-git' | 'legacy' | 'copy';

export type Operation =
  | 'first-checkpoint'
  | 'incremental-checkpoint'
  | 'no-change-checkpoint'
  | 'diff-summary'
  | 'file-contents'
  | 'restore'
  | 'undo'
  | 'hook'
  | 'hook-http'
  | 'hook-command'
  | 'timeline-page';

/** The operations every git-backed method (Retrace and both baselines) is timed on. */
export const TREE_OPERATIONS: readonly Operation[] = [
  'first-checkpoint',
  'incremental-checkpoint',
  'no-change-checkpoint',
  'diff-summary',
  'file-contents',
  'restore',
  'undo',
];

export interface BenchMethod {
  readonly name: MethodName;
  /** This method's own copy of the tree. */
  readonly root: string;
  readonly operations: readonly Operation[];
  /** Drop the store and start empty (untimed). */
  reset(): Promise<void>;
  /** Take a checkpoint. `changed`: the paths edited since the last one, for methods that can use a hint. */
  checkpoint(changed: string[] | null): Promise<void>;
  /** The id of the checkpoint `back` steps before the newest (0 = newest). Untimed. */
  checkpointId(back: number): Promise<string>;
  /** What changed between two checkpoints (names, status, +/-). Returns the number of files. */
  diffSummary(from: string, to: string): Promise<number>;
  /** One file's bytes on both sides. */
  fileContents(from: string, to: string, rel: string): Promise<void>;
  /** Files back to checkpoint `target`. */
  restore(target: string): Promise<void>;
  /** Back to the state before the last restore. */
  undo(): Promise<void>;
  /** Bytes of the store on disk. */
  storeBytes(): Promise<number>;
  /** Remove everything this method made (untimed). */
  dispose(): Promise<void>;
}

/**
 * Checkpoint trees for an importer that rebuilt what the files looked like at each step: the workspace as it
 * is now (snapshot taken at import) with each touched file set to its state at that step — its content,
 * absent (null), or left as in the workspace when the step does not know it. "This step" then shows what
 * the agent changed, and restoring a step changes only files the agent touched. The caller holds the
 * workspace lock and disposes of it.
 */
import type { ShadowRepo } from '../engine/shadow/ShadowRepo';
import { TreeBuilder, type TreeEdit } from '../engine/shadow/buildTree';

/** A file at one step: its content, or null when it does not exist then. */
export type FileState = string | null;

export class StepTrees {
  /** The state each path has in the tree built last (to write only what changed). */
  private readonly last = new Map<string, FileState | 'base'>();

  private constructor(
    private readonly builder: TreeBuilder,
    private readonly paths: string[],
  ) {}

  /** `paths`: every workspace-relative path any step may set (touched and not excluded). */
  static async open(shadow: ShadowRepo, paths: string[]): Promise<StepTrees> {
    const base = (await shadow.snapshotTree()).tree;
    return new StepTrees(await TreeBuilder.open(shadow, base), paths);
  }

  /** The tree for one step: `states` holds the paths whose state is known then. */
  async tree(states: Map<string, FileState>): Promise<string> {
    const edits = new Map<string, TreeEdit>();
    for (const p of this.paths) {
      const want: FileState | 'base' = states.has(p) ? states.get(p)! : 'base';
      if (this.last.has(p) && this.last.get(p) === want) continue;
      this.last.set(p, want);
      edits.set(p, want === 'base' ? 'base' : want === null ? null : Buffer.from(want, 'utf8'));
    }
    return this.builder.write(edits);
  }

  /** Make the trees' objects durable: call once after the last tree, before the session is written. */
  flush(): Promise<void> {
    return this.builder.flush();
  }

  dispose(): void {
    this.builder.dispose();
  }
}

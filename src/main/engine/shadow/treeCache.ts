/**
 * Commit → tree answers, remembered per shadow repository (engineer E, perf). A commit's tree never changes,
 * so `rev-parse <commit>^{tree}` need run once per commit and process: a checkpoint's stats, the app's diff
 * summaries and file reads all start by resolving trees (one git process each, 5–20 ms apiece). Commits this
 * process creates are known without asking. Only full 40-hex ids are cached (a prefix could become ambiguous).
 */
const MAX_ENTRIES = 10_000;
const FULL_ID = /^[0-9a-f]{40}$/;

export class TreeCache {
  private readonly trees = new Map<string, string>();

  get(id: string): string | undefined {
    const tree = this.trees.get(id);
    if (tree !== undefined) {
      // Most recently used last, so the oldest entry is the one dropped.
      this.trees.delete(id);
      this.trees.set(id, tree);
    }
    return tree;
  }

  set(id: string, tree: string): void {
    if (!FULL_ID.test(id) || !FULL_ID.test(tree)) return;
    this.trees.delete(id);
    this.trees.set(id, tree);
    if (this.trees.size > MAX_ENTRIES) this.trees.delete(this.trees.keys().next().value!);
  }
}

/**
 * The conversation graph of a transcript's main thread (docs/formats.md, "The conversation graph"):
 * nodes are its user / assistant / system / attachment lines; `progress` lines are not conversation, so a
 * line whose parent is a progress line hangs from that line's nearest non-progress ancestor. A
 * `compact_boundary` (parentUuid null) hangs from its `logicalParentUuid`, or, when that line is not in the
 * file, from the conversation line written just before it: the pre-compaction part stays the conversation.
 * Links that form a cycle are cut at the cycle's first-written line, which becomes a root. Pure.
 */
import type { ConvLine } from './types';

export interface Graph {
  /** The nodes, in the order written (first copy of each uuid). */
  nodes: ConvLine[];
  byUuid: Map<string, ConvLine>;
  /** Effective parent of each node; null for a root. */
  parentOf: Map<string, string | null>;
  /** Children of each node in the order written; the roots under the key null. */
  children: Map<string | null, ConvLine[]>;
}

export function isProgress(l: ConvLine): boolean {
  return l.type === 'progress';
}

function isCompactBoundary(l: ConvLine): boolean {
  return l.type === 'system' && l.subtype === 'compact_boundary';
}

export function buildGraph(main: ConvLine[], warnings: string[]): Graph {
  const all = new Map<string, ConvLine>();
  for (const l of main) if (!all.has(l.uuid)) all.set(l.uuid, l);
  const nodes = [...all.values()].filter((l) => !isProgress(l));
  const byUuid = new Map(nodes.map((l) => [l.uuid, l]));

  // Parent as written, resolved through progress lines (which may chain among themselves).
  const resolve = (start: string | null): string | null => {
    let cur = start;
    // More steps than lines: the progress lines loop among themselves.
    for (let steps = 0; cur !== null && steps <= all.size; steps++) {
      const l = all.get(cur);
      if (!l || !isProgress(l)) return cur;
      cur = l.parentUuid;
    }
    return null;
  };
  const parentOf = new Map<string, string | null>();
  let missing = 0;
  let previous: ConvLine | null = null;
  for (const l of nodes) {
    let p = resolve(l.parentUuid);
    if (p === null && isCompactBoundary(l)) {
      const logical = l.logicalParentUuid ? resolve(l.logicalParentUuid) : null;
      p = logical !== null && byUuid.has(logical) ? logical : (previous?.uuid ?? null);
    }
    if (p !== null && !byUuid.has(p)) {
      missing++;
      p = null;
    }
    parentOf.set(l.uuid, p);
    previous = l;
  }
  if (missing > 0)
    warnings.push(
      `${missing} line(s) refer to a parent that is not in the file; the conversation starts again at each`,
    );

  const cut = cutCycles(nodes, parentOf);
  if (cut > 0)
    warnings.push(
      `dag_cycle: the parentUuid links of ${cut} group(s) of lines form a cycle; each is cut at its first-written line`,
    );

  const children = new Map<string | null, ConvLine[]>();
  for (const l of nodes) {
    const p = parentOf.get(l.uuid) ?? null;
    const list = children.get(p);
    if (list) list.push(l);
    else children.set(p, [l]);
  }
  return { nodes, byUuid, parentOf, children };
}

/** Make the first-written line of every cycle a root; returns how many cycles were cut. */
function cutCycles(nodes: ConvLine[], parentOf: Map<string, string | null>): number {
  const state = new Map<string, 1 | 2>(); // 1: on the current walk, 2: known to reach a root
  let cycles = 0;
  for (const start of nodes) {
    const walk: string[] = [];
    let cur: string | null = start.uuid;
    while (cur !== null && !state.has(cur)) {
      state.set(cur, 1);
      walk.push(cur);
      cur = parentOf.get(cur) ?? null;
    }
    if (cur !== null && state.get(cur) === 1) {
      // The walk came back to itself: the cycle is the part of the walk from `cur` on.
      const cycle = walk.slice(walk.indexOf(cur));
      const byOrder = new Map(nodes.map((n, i) => [n.uuid, i]));
      const first = cycle.reduce((a, b) => (byOrder.get(a)! <= byOrder.get(b)! ? a : b));
      parentOf.set(first, null);
      cycles++;
    }
    for (const u of walk) state.set(u, 2);
  }
  return cycles;
}

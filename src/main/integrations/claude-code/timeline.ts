/**
 * Which lines of the graph are the conversation (docs/formats.md, "Leaf and timeline"):
 * - the leaf is the newest user/assistant line of the main thread (by timestamp, then by the order written);
 *   progress, system and attachment lines never decide it;
 * - walking down from the roots, each node keeps one child: the one leading to the leaf, or (off that path)
 *   the one whose subtree holds the newest user/assistant line;
 * - every other child is a branch. It was abandoned (hidden as "rewind") when it is a typed prompt, or when
 *   the kept child is a typed prompt and it is a user/assistant line: the person sent a prompt again from an
 *   earlier point (a /rewind, an edited prompt); among roots, only a typed prompt is. Any other branch — sibling tool calls of one response, their
 *   results, system/attachment lines — is folded into the timeline.
 * Pure.
 */
import type { Graph } from './graph';
import { isTalk, isTypedPrompt } from './labels';
import type { ConvLine, HiddenReason } from './types';

export interface Timeline {
  leaf: ConvLine | null;
  /** The timeline's lines in the order written. */
  lines: ConvLine[];
  hidden: Map<string, HiddenReason>;
}

export function newer(a: ConvLine, b: ConvLine): boolean {
  if (a.ts !== b.ts) return a.ts > b.ts;
  return a.order > b.order;
}

export function pickLeaf(nodes: ConvLine[]): ConvLine | null {
  let best: ConvLine | null = null;
  for (const l of nodes) if (isTalk(l) && (!best || newer(l, best))) best = l;
  if (best) return best;
  for (const l of nodes) if (!best || newer(l, best)) best = l;
  return best;
}

export function layTimeline(graph: Graph): Timeline {
  const leaf = pickLeaf(graph.nodes);
  const onPath = new Set<string>();
  for (let u: string | null = leaf?.uuid ?? null; u !== null && !onPath.has(u); u = graph.parentOf.get(u) ?? null)
    onPath.add(u);
  const newestBelow = newestTalkBelow(graph);

  const kept = new Set<string>();
  const hidden = new Map<string, HiddenReason>();
  const stack: (string | null)[] = [null];
  while (stack.length > 0) {
    const parent = stack.pop()!;
    const children = graph.children.get(parent) ?? [];
    if (children.length === 0) continue;
    const next = children.find((c) => onPath.has(c.uuid)) ?? newestOf(children, newestBelow);
    for (const c of children) {
      // Between roots (separate starts) only a typed prompt counts as re-sent: the first prompt edited.
      const resent = isTypedPrompt(next) && isTalk(c) && parent !== null;
      const abandoned = c !== next && (isTypedPrompt(c) || resent);
      if (abandoned) markSubtree(graph, c, hidden);
      else {
        kept.add(c.uuid);
        stack.push(c.uuid);
      }
    }
  }
  for (const n of graph.nodes) if (!kept.has(n.uuid) && !hidden.has(n.uuid)) hidden.set(n.uuid, 'other');
  return { leaf, lines: graph.nodes.filter((n) => kept.has(n.uuid)), hidden };
}

function newestOf(children: ConvLine[], newestBelow: Map<string, ConvLine>): ConvLine {
  let best = children[0]!;
  for (const c of children) {
    const a = newestBelow.get(c.uuid);
    const b = newestBelow.get(best.uuid);
    if (a && (!b || newer(a, b))) best = c;
  }
  return best;
}

/** For each node, the newest user/assistant line in its subtree (itself included), if any. */
function newestTalkBelow(graph: Graph): Map<string, ConvLine> {
  const out = new Map<string, ConvLine>();
  // Children come after their parents in a depth-first pre-order; walk it backwards to go bottom-up.
  const order: ConvLine[] = [];
  const stack = [...(graph.children.get(null) ?? [])];
  while (stack.length > 0) {
    const n = stack.pop()!;
    order.push(n);
    stack.push(...(graph.children.get(n.uuid) ?? []));
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i]!;
    let best = isTalk(n) ? n : undefined;
    for (const c of graph.children.get(n.uuid) ?? []) {
      const b = out.get(c.uuid);
      if (b && (!best || newer(b, best))) best = b;
    }
    if (best) out.set(n.uuid, best);
  }
  return out;
}

function markSubtree(graph: Graph, root: ConvLine, hidden: Map<string, HiddenReason>): void {
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    hidden.set(n.uuid, 'rewind');
    stack.push(...(graph.children.get(n.uuid) ?? []));
  }
}

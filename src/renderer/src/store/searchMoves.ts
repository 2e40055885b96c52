/** Pure pieces of moving between matches and prompts (store/search.ts), kept apart so they can be tested alone. */
import type { CheckpointRef, SearchHit } from '../../../shared/model';

/** The next (1) or previous (-1) entry of an ascending row list after / before row `at`, wrapping round. */
export function nextRow(rows: readonly number[], at: number, delta: 1 | -1): number | undefined {
  if (rows.length === 0) return undefined;
  if (delta > 0) return rows.find((r) => r > at) ?? rows[0];
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i]! < at) return rows[i];
  return rows[rows.length - 1];
}

/**
 * The next or previous hit of a list across sessions (newest session first, each session's rows in order) from
 * row `at` of session `here`, wrapping round; from a session with no hits: the first (or last) hit.
 */
export function nextHit(
  hits: readonly SearchHit[],
  here: string | null,
  at: number,
  delta: 1 | -1,
): SearchHit | undefined {
  const order = new Map<string, number>();
  for (const h of hits) if (!order.has(h.session)) order.set(h.session, order.size);
  const mine = here !== null ? order.get(here) : undefined;
  if (mine === undefined) return delta > 0 ? hits[0] : hits[hits.length - 1];
  const place = (h: SearchHit) => order.get(h.session)! - mine || (h.index ?? -1) - at;
  if (delta > 0) return hits.find((h) => place(h) > 0) ?? hits[0];
  return hits.findLast((h) => place(h) < 0) ?? hits[hits.length - 1];
}

/**
 * The checkpoint (its place in the list) that shows row `row`: the one it carries, else the newest before it
 * (the files as that message saw them), else the first.
 */
export function checkpointForRow(checkpoints: readonly CheckpointRef[], row: number): number {
  let pick = -1;
  for (let i = 0; i < checkpoints.length && checkpoints[i]!.index <= row; i++) pick = i;
  return Math.max(0, pick);
}

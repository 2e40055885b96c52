/**
 * The session a window opens a folder on: the most recently updated one (on a tie, the first listed). The service
 * answers the window's first view with it and the renderer picks it again when the list changes: one rule.
 */
export function newestSession<T extends { updatedAt: string }>(list: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const s of list) if (!best || s.updatedAt > best.updatedAt) best = s;
  return best;
}

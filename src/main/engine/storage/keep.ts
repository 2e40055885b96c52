/**
 * Which sessions gc never removes, and why: those whose chain holds a labelled checkpoint (labels are refs
 * `refs/retrace/labels/<commit>` → an annotated tag), and the one an agent's hook is recording right now (its
 * next event would find its history gone). `forget` refuses both unless forced.
 */
import type { SessionSummary } from '../../../shared/model';
import type { WorkspaceContext } from '../context';

export const LABEL_PREFIX = 'refs/retrace/labels/';
export const SESSION_PREFIX = 'refs/retrace/sessions/';
/** A session with activity this recent is taken to be recording now. */
export const LIVE_MS = 10 * 60_000;

/** Session id → why it is kept. */
export async function keepReasons(
  ctx: WorkspaceContext,
  sessions: readonly SessionSummary[],
  now: number,
): Promise<Map<string, string>> {
  const kept = new Map<string, string>();
  const shadow = await ctx.shadow();
  // One question per label (they are few, and each reason names its label's checkpoint).
  for (const label of await shadow.peeledRefs(LABEL_PREFIX)) {
    for (const ref of await shadow.refsContaining([label.commit], SESSION_PREFIX)) {
      const id = ref.slice(SESSION_PREFIX.length);
      if (!kept.has(id)) kept.set(id, `labelled (checkpoint ${label.commit.slice(0, 7)})`);
    }
  }
  for (const s of sessions) {
    const idle = now - Date.parse(s.updatedAt);
    if (!kept.has(s.id) && idle < LIVE_MS)
      kept.set(s.id, `being recorded now (last activity ${Math.max(0, Math.round(idle / 60_000))} min ago)`);
  }
  return kept;
}

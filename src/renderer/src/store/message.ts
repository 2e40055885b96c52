/**
 * The Message region's state (UI.md "Message reading"): which message it shows and that message whole.
 * It shows the row the person picked (a click on any row, or the region's Previous/Next message buttons), else
 * the selected checkpoint's message; moving the checkpoint (keys, slider, a click) drops the pick. Timeline
 * pages carry messages without their long details, so the shown one is fetched with `message`.
 */
import { useEffect } from 'react';
import { create } from 'zustand';
import type { ErrorInfo } from '../../../shared/errors';
import type { Message } from '../../../shared/model';
import { api } from '../bridge';
import { ensureRange, useStore, type State } from './index';

interface MessageState {
  /** A row picked by the person, by message id; null: follow the selected checkpoint. */
  picked: string | null;
  /** The shown message fetched whole, keyed by `workspace/session/id`. */
  full: { key: string; message: Message } | null;
  error: { key: string; error: ErrorInfo } | null;
}

export const useMessageStore = create<MessageState>()(() => ({ picked: null, full: null, error: null }));
const set = useMessageStore.setState;

/** The id of the message the region shows. */
export function shownMessageId(s: State, picked: string | null): string | null {
  return picked ?? s.checkpoints[s.selected]?.messageId ?? null;
}

export function useShownMessageId(): string | null {
  const picked = useMessageStore((m) => m.picked);
  return useStore((s) => shownMessageId(s, picked));
}

export function pickMessage(id: string): void {
  set({ picked: id });
}

/** The row `delta` away from the shown one (Previous/Next message); pages load on the way. */
export async function stepMessage(delta: 1 | -1): Promise<void> {
  const s = useStore.getState();
  const id = shownMessageId(s, useMessageStore.getState().picked);
  const at = id ? s.messages.findIndex((m) => m?.id === id) : -1;
  const next = at + delta;
  if (at < 0 || next < 0 || next >= s.total) return;
  if (!s.messages[next]) await ensureRange(next, next);
  const m = useStore.getState().messages[next];
  if (m) pickMessage(m.id);
}

const keyOf = (s: State, id: string): string | null =>
  s.workspace && s.sessionId ? `${s.workspace.id}/${s.sessionId}/${id}` : null;

/** The shown message whole, fetched when the shown id changes. */
export function useShownMessage(): { message: Message | null; summary: Message | null; error: ErrorInfo | null } {
  const id = useShownMessageId();
  const key = useStore((s) => (id ? keyOf(s, id) : null));
  const summary = useStore((s) => (id ? (s.messages.find((m) => m?.id === id) ?? null) : null));
  const full = useMessageStore((m) => (m.full && m.full.key === key ? m.full.message : null));
  const error = useMessageStore((m) => (m.error && m.error.key === key ? m.error.error : null));
  useEffect(() => {
    if (!key || !id) return;
    const { workspace, sessionId } = useStore.getState();
    if (!workspace || !sessionId) return;
    if (useMessageStore.getState().full?.key === key) return;
    void api.message({ workspace: workspace.id, session: sessionId, id }).then((r) => {
      if (r.ok) set({ full: { key, message: r.value }, error: null });
      else set({ error: { key, error: r.error } });
    });
  }, [key, id]);
  return { message: full, summary, error };
}

// Moving the checkpoint selection (or opening another session) shows that checkpoint's message again.
useStore.subscribe((s, prev) => {
  if (s.selected !== prev.selected || s.sessionId !== prev.sessionId || s.workspace !== prev.workspace)
    if (useMessageStore.getState().picked !== null) set({ picked: null });
});

/**
 * The diff view's Blame toggle (its own zustand store, beside the main one): who last changed each line of the
 * selected file as it is now (`blame` on the service, the same use case as `retrace blame`), the file's text,
 * and for each step the words the gutter's hover shows (the step's message and the prompt before it).
 */
import { create } from 'zustand';
import type { ErrorInfo } from '../../../shared/errors';
import type { BlameLine } from '../../../shared/model';
import { api } from '../bridge';

export interface StepWords {
  /** The step's own message (a tool call, a reply, a prompt). */
  step: string;
  /** The prompt that led to it, when the session's timeline has one before it. */
  prompt: string | null;
}

interface BlameState {
  on: boolean;
  /** What the answer below is for: `${workspace}:${path}`. */
  key: string | null;
  lines: BlameLine[] | null;
  text: string[] | null;
  words: Record<string, StepWords>;
  error: ErrorInfo | null;
}

export const useBlame = create<BlameState>()(() => ({
  on: false,
  key: null,
  lines: null,
  text: null,
  words: {},
  error: null,
}));
const get = useBlame.getState;
const set = useBlame.setState;

export function toggleBlame(): void {
  set({ on: !get().on });
}

/** Load (or reload: the file or the timeline changed) the blame of `path`; a newer request wins. */
export async function loadBlame(workspace: string, path: string): Promise<void> {
  const key = `${workspace}:${path}`;
  if (get().key !== key) set({ key, lines: null, text: null, error: null });
  const [blame, contents] = await Promise.all([
    api.blame({ workspace, path }),
    api.fileContents({ workspace, from: null, to: 'working', path }),
  ]);
  if (get().key !== key) return;
  if (!blame.ok) return set({ lines: null, text: null, error: blame.error });
  const text = contents.ok && contents.value.after !== null ? contents.value.after.split('\n') : [];
  set({ lines: blame.value.lines, text, error: null });
  await loadWords(workspace, blame.value.lines, key);
}

/** The hover's words for every step the lines name: its message, and the last user prompt at or before it. */
async function loadWords(workspace: string, lines: BlameLine[], key: string): Promise<void> {
  const steps = new Map<string, { session: string; message: string }>();
  for (const l of lines) if (l.session && l.message) steps.set(l.message, { session: l.session, message: l.message });
  const words: Record<string, StepWords> = { ...get().words };
  const bySession = new Map<string, { id: string; role: string; text: string }[]>();
  for (const { session, message } of steps.values()) {
    if (words[message]) continue;
    if (!bySession.has(session)) {
      const t = await api.timeline({ workspace, session, limit: 5000 });
      bySession.set(session, t.ok ? t.value.messages : []);
    }
    const list = bySession.get(session)!;
    const i = list.findIndex((m) => m.id === message);
    if (i < 0) continue;
    const prompt = list
      .slice(0, i + 1)
      .reverse()
      .find((m) => m.role === 'user');
    words[message] = { step: list[i]!.text, prompt: prompt?.text ?? null };
  }
  if (get().key === key) set({ words });
}

/** Turn a session log's events into the conversation as it is now. Pure; no I/O. */
import { agentOf, type Message, type SessionSource, type SessionSummary } from '../../../shared/model';
import type { SessionEvent, SessionHeader } from './events';

export interface SessionState {
  header: SessionHeader;
  /** Every message in log order, each marked hidden or not. */
  messages: Message[];
  /** ts of the last event (the header's createdAt for an empty session). */
  updatedAt: string;
  /** Torn or damaged lines skipped while reading. */
  skipped: number;
  /** The visibility events, for recovery (which events did restore X write?). */
  visibility: Extract<SessionEvent, { type: 'rewind' | 'unrewind' }>[];
  /**
   * Messages that started hidden (MessageEvent.hidden: an importer's abandoned branch) and no event has shown
   * since: not part of the conversation, so a conversation restore neither shows nor counts them. (Added by D.)
   */
  offBranch: Set<string>;
}

export function replay(id: string, events: SessionEvent[], skipped = 0): SessionState {
  const first = events[0];
  const header: SessionHeader =
    first?.type === 'session'
      ? first
      : // A torn header (killed while creating the file): rebuild a plain one rather than lose the messages.
        {
          type: 'session',
          v: 1,
          id,
          title: '',
          source: 'cli',
          createdAt: firstTs(events) ?? new Date(0).toISOString(),
        };
  const messages: Message[] = [];
  const byId = new Map<string, Message>();
  const visibility: SessionState['visibility'] = [];
  const offBranch = new Set<string>();
  let title = header.title;
  let updatedAt = header.createdAt;
  for (const ev of events) {
    // The last event's time, as SessionStore.mostRecent reads it from the tail.
    if (ev.type !== 'session' && typeof ev.ts === 'string') updatedAt = ev.ts;
    switch (ev.type) {
      case 'message': {
        if (typeof ev.id !== 'string' || byId.has(ev.id)) break; // a duplicate id can only be damage: keep the first
        const m: Message = {
          id: ev.id,
          ts: ev.ts,
          role: ev.role,
          text: ev.text ?? '',
          hash: ev.hash ?? null,
          hidden: ev.hidden === true,
        };
        if (ev.hidden === true) offBranch.add(ev.id);
        if (ev.stats) m.stats = ev.stats;
        if (ev.meta) m.meta = ev.meta;
        messages.push(m);
        byId.set(m.id, m);
        break;
      }
      case 'rewind':
        visibility.push(ev);
        for (const mid of ev.hide ?? []) {
          const m = byId.get(mid);
          if (m) m.hidden = true;
        }
        break;
      case 'unrewind':
        visibility.push(ev);
        for (const mid of ev.show ?? []) {
          const m = byId.get(mid);
          if (m) m.hidden = false;
          offBranch.delete(mid);
        }
        break;
      case 'title':
        if (typeof ev.title === 'string') title = ev.title;
        break;
    }
  }
  if (!title) title = defaultTitle(messages) ?? id;
  return { header: { ...header, title }, messages, updatedAt, skipped, visibility, offBranch };
}

export function summarize(state: SessionState): SessionSummary {
  let messages = 0;
  let checkpoints = 0;
  for (const m of state.messages) {
    if (m.hidden) continue;
    messages++;
    if (m.hash) checkpoints++;
  }
  return {
    id: state.header.id,
    title: state.header.title,
    source: state.header.source as SessionSource,
    agent: agentOf(state.header.source as SessionSource),
    createdAt: state.header.createdAt,
    updatedAt: state.updatedAt,
    messages,
    checkpoints,
  };
}

/** The first line of the first user message, cut to 80 characters. */
function defaultTitle(messages: Message[]): string | null {
  const first = messages.find((m) => m.role === 'user' && m.text.trim() !== '');
  if (!first) return null;
  const line = first.text.trim().split('\n')[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function firstTs(events: SessionEvent[]): string | undefined {
  for (const ev of events) if (ev.type !== 'session' && typeof ev.ts === 'string') return ev.ts;
  return undefined;
}

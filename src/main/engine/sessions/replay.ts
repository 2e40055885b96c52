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
  return new SessionFold(id).add(events, skipped).view();
}

/**
 * A session's events folded in as they come: a log read once, then only its new lines (logCache.ts). Folding
 * the events in any number of batches gives the same state as folding them all at once.
 */
export class SessionFold {
  /** Counts the batches folded in, so that what is derived from the state can be kept until it changes. */
  version = 0;
  private first: SessionEvent | undefined;
  private firstTs: string | undefined;
  private lastTs: string | undefined;
  private title: string | undefined;
  private skipped = 0;
  private readonly messages: Message[] = [];
  private readonly byId = new Map<string, Message>();
  private readonly visibility: SessionState['visibility'] = [];
  private readonly offBranch = new Set<string>();

  constructor(private readonly id: string) {}

  add(events: SessionEvent[], skipped = 0): this {
    this.version++;
    this.skipped += skipped;
    for (const ev of events) this.fold(ev);
    return this;
  }

  /** The state, sharing the fold's own objects: for reading only (snapshot() gives a copy one may change). */
  view(): SessionState {
    const first = this.first;
    const header: SessionHeader =
      first?.type === 'session'
        ? first
        : // A torn header (killed while creating the file): rebuild a plain one rather than lose the messages.
          {
            type: 'session',
            v: 1,
            id: this.id,
            title: '',
            source: 'cli',
            createdAt: this.firstTs ?? new Date(0).toISOString(),
          };
    let title = this.title !== undefined ? this.title : header.title;
    if (!title) title = defaultTitle(this.messages) ?? this.id;
    return {
      header: { ...header, title },
      messages: this.messages,
      // The last event's time, as SessionStore.mostRecent reads it from the tail.
      updatedAt: this.lastTs ?? header.createdAt,
      skipped: this.skipped,
      visibility: this.visibility,
      offBranch: this.offBranch,
    };
  }

  /** The state as a copy: later events folded in do not change it, and changing it does not change the fold. */
  snapshot(): SessionState {
    const v = this.view();
    return {
      ...v,
      messages: v.messages.map((m) => ({ ...m })),
      visibility: [...v.visibility],
      offBranch: new Set(v.offBranch),
    };
  }

  private fold(ev: SessionEvent): void {
    this.first ??= ev;
    if (ev.type !== 'session' && typeof ev.ts === 'string') {
      this.firstTs ??= ev.ts;
      this.lastTs = ev.ts;
    }
    switch (ev.type) {
      case 'message': {
        if (typeof ev.id !== 'string' || this.byId.has(ev.id)) break; // a duplicate id can only be damage: keep the first
        const m: Message = {
          id: ev.id,
          ts: ev.ts,
          role: ev.role,
          text: ev.text ?? '',
          hash: ev.hash ?? null,
          hidden: ev.hidden === true,
        };
        if (ev.hidden === true) this.offBranch.add(ev.id);
        if (ev.stats) m.stats = ev.stats;
        if (ev.meta) m.meta = ev.meta;
        this.messages.push(m);
        this.byId.set(m.id, m);
        break;
      }
      case 'rewind':
        this.visibility.push(ev);
        for (const mid of ev.hide ?? []) {
          const m = this.byId.get(mid);
          if (m) m.hidden = true;
        }
        break;
      case 'unrewind':
        this.visibility.push(ev);
        for (const mid of ev.show ?? []) {
          const m = this.byId.get(mid);
          if (m) m.hidden = false;
          this.offBranch.delete(mid);
        }
        break;
      case 'title':
        if (typeof ev.title === 'string') this.title = ev.title;
        break;
    }
  }
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

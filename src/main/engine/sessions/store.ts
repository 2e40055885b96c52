/**
 * The session logs of one workspace: <ws.dir>/sessions/<id>.jsonl, one append-only file per session.
 * Writers call this under the workspace lock; readers need no lock (appends are whole lines, and a torn
 * last line is skipped).
 */
import { closeSync, existsSync, fsyncSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdirPrivateSync, openPrivateSync } from '../privateFs';
import { dirname, join } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { SessionSource, SessionSummary } from '../../../shared/model';
import type {
  MessageEvent,
  RewindEvent,
  SessionEvent,
  SessionHeader,
  SessionOrigin,
  TitleEvent,
  UnrewindEvent,
} from './events';
import { assertSessionId, isValidSessionId } from './ids';
import { appendJsonl, isNotFound, readLastRecord, type AppendResult } from './jsonl';
import { LogCache } from './logCache';
import { readPulled } from './pulled';
import { summarize, type SessionFold, type SessionState } from './replay';

export interface CreateSessionOptions {
  title?: string;
  source?: SessionSource;
  createdAt?: string;
  origin?: SessionOrigin;
}

/** A new session's first line. */
export function sessionHeader(id: string, opts: CreateSessionOptions = {}): SessionHeader {
  return {
    type: 'session',
    v: 1,
    id,
    title: opts.title ?? '',
    source: opts.source ?? 'cli',
    createdAt: opts.createdAt ?? new Date().toISOString(),
    ...(opts.origin ? { origin: opts.origin } : {}),
  };
}

export class SessionStore {
  readonly dir: string;

  /** Each log's folded state, kept and brought up to date by reading only what was appended (logCache.ts). */
  private readonly cache = new LogCache();

  /** Summaries computed from a fold, kept until the fold changes. */
  private readonly summaryCache = new WeakMap<SessionFold, { version: number; summary: SessionSummary }>();

  constructor(wsDir: string) {
    this.dir = join(wsDir, 'sessions');
  }

  file(id: string): string {
    return join(this.dir, `${assertSessionId(id)}.jsonl`);
  }

  /** Ids of every session, sorted. */
  ids(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (e) {
      if (isNotFound(e)) return [];
      throw e;
    }
    return names
      .filter((n) => n.endsWith('.jsonl'))
      .map((n) => n.slice(0, -'.jsonl'.length))
      .filter(isValidSessionId)
      .sort();
  }

  exists(id: string): boolean {
    return existsSync(this.file(id));
  }

  /** Create a session with its header. Fails if it exists. */
  create(id: string, opts: CreateSessionOptions = {}): SessionHeader {
    const file = this.file(id);
    mkdirPrivateSync(this.dir);
    const header = sessionHeader(id, opts);
    let fd: number;
    try {
      fd = openPrivateSync(file, 'wx');
    } catch (e) {
      if ((e as { code?: string }).code === 'EEXIST')
        throw new RetraceError('E_INVALID_INPUT', `session ${id} already exists`);
      throw e;
    }
    try {
      writeFileSync(fd, JSON.stringify(header) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return header;
  }

  /** Remove a session's log (the caller drops its ref). Unknown → E_UNKNOWN_SESSION. */
  remove(id: string): void {
    try {
      unlinkSync(this.file(id));
      this.cache.drop(this.file(id));
    } catch (e) {
      if (isNotFound(e)) throw new RetraceError('E_UNKNOWN_SESSION', `no session ${id} in this workspace`);
      throw e;
    }
  }

  /** Append events to an existing session. */
  append(id: string, events: (MessageEvent | RewindEvent | UnrewindEvent | TitleEvent)[]): AppendResult {
    try {
      return appendJsonl(this.file(id), events, { create: false });
    } catch (e) {
      if (isNotFound(e)) throw new RetraceError('E_UNKNOWN_SESSION', `no session ${id} in this workspace`);
      throw e;
    }
  }

  /** Replay a session (a copy the caller may change). Unknown → E_UNKNOWN_SESSION. */
  async read(id: string): Promise<SessionState> {
    return this.fold(id).snapshot();
  }

  async readAll(): Promise<SessionState[]> {
    return Promise.all(this.ids().map((id) => this.read(id)));
  }

  async summaries(): Promise<SessionSummary[]> {
    const out: SessionSummary[] = [];
    for (const id of this.ids()) {
      let fold: SessionFold;
      try {
        fold = this.fold(id);
      } catch (e) {
        if (e instanceof RetraceError && e.code === 'E_UNKNOWN_SESSION') continue; // removed since the listing
        throw e;
      }
      const kept = this.summaryCache.get(fold);
      if (kept && kept.version === fold.version) {
        out.push(kept.summary);
        continue;
      }
      const summary = summarize(fold.view());
      this.summaryCache.set(fold, { version: fold.version, summary });
      out.push(summary);
    }
    return out.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  }

  /** A session's fold, brought up to date with its log (only the appended lines are read). */
  private fold(id: string): SessionFold {
    const r = this.cache.read(this.file(id), id);
    if (r.kind === 'missing') throw new RetraceError('E_UNKNOWN_SESSION', `no session ${id} in this workspace`);
    return r.fold;
  }

  /** The last event of a session's log (reading only its tail), or null when the session has none. */
  lastEvent(id: string): SessionEvent | null {
    return readLastRecord<SessionEvent>(this.file(id));
  }

  /**
   * The session with the latest updatedAt, reading only the tail of each log (the hook calls this on every
   * tool call). Ties go to the larger id, so the answer is stable.
   */
  mostRecent(): string | null {
    let best: { id: string; at: string } | null = null;
    // A session pulled from a remote is someone else's record: never the one new messages go to.
    const pulled = readPulled(dirname(this.dir));
    for (const id of this.ids()) {
      if (Object.prototype.hasOwnProperty.call(pulled, id)) continue;
      const last = readLastRecord<SessionEvent>(join(this.dir, `${id}.jsonl`));
      const at = last ? (last.type === 'session' ? last.createdAt : last.ts) : '';
      if (!best || at > best.at || (at === best.at && id > best.id)) best = { id, at: at ?? '' };
    }
    return best?.id ?? null;
  }
}

/**
 * The lines of a session log (<ws.dir>/sessions/<id>.jsonl). The first line is the header; the visible
 * conversation is the replay of every later line. Nothing is ever deleted: a conversation restore appends a
 * `rewind` that hides messages, and its undo (or a rollback) appends an `unrewind` that shows them again.
 */
import type { CheckpointStats, MessageMeta, Role, SessionSource } from '../../../shared/model';

export interface SessionHeader {
  type: 'session';
  v: 1;
  id: string;
  title: string;
  source: SessionSource;
  createdAt: string;
  /** Where an imported or hooked session came from (the Claude Code fork on restore needs the transcript). */
  origin?: SessionOrigin;
}

export interface SessionOrigin {
  kind: 'claude-code' | 'cline' | 'codex' | 'gemini';
  transcript?: string;
  sessionId?: string;
  cwd?: string;
  taskId?: string;
}

export interface MessageEvent {
  type: 'message';
  id: string;
  ts: string;
  role: Role;
  text: string;
  hash?: string;
  stats?: CheckpointStats;
  meta?: MessageMeta;
  /** Starts hidden (an importer's abandoned branch); shown again only by an event that lists it. */
  hidden?: true;
}

/** Hide messages. `rid` is the restore (or undo) that did it. */
export interface RewindEvent {
  type: 'rewind';
  ts: string;
  rid: string;
  /** The message the conversation ends at again (absent for an undo that re-hides). */
  to?: string;
  hide: string[];
  /** Set on events that cancel an interrupted operation's own events during recovery. */
  compensates?: true;
}

/** Show messages again. */
export interface UnrewindEvent {
  type: 'unrewind';
  ts: string;
  rid: string;
  show: string[];
  compensates?: true;
}

/** A later title (importers learn it after the header is written). */
export interface TitleEvent {
  type: 'title';
  ts: string;
  title: string;
}

export type SessionEvent = SessionHeader | MessageEvent | RewindEvent | UnrewindEvent | TitleEvent;

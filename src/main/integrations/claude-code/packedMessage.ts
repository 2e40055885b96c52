/**
 * A message waiting for the import's write, kept compressed. Between reading a transcript and writing its
 * session, an import holds every message; their texts and details (tool output, patches, thinking) were half
 * of what the reading half held, in JavaScript strings of two bytes per character as soon as one character is
 * beyond Latin-1 (Claude Code's Read output has `→` on every line). Deflated JSON holds the same in a fraction
 * (issue 15 item 4: peak memory ≤ 2× the transcript). What the reconstruction reads (kind, ids, time, hidden)
 * stays as it is; `text` and `meta` are decoded when read — by the write, once per message.
 */
import type { MessageMeta } from '../../../shared/model';
import { deflateText, inflateText } from './packedText';
import type { ConversationMessage } from './types';

class PackedMessage implements ConversationMessage {
  readonly role: ConversationMessage['role'];
  readonly kind: ConversationMessage['kind'];
  readonly ts: string;
  readonly hidden: boolean;
  readonly uuids: string[];
  readonly toolUseId?: string;
  private readonly packed: Buffer;

  constructor(m: ConversationMessage) {
    this.role = m.role;
    this.kind = m.kind;
    this.ts = m.ts;
    this.hidden = m.hidden;
    this.uuids = m.uuids;
    if (m.toolUseId !== undefined) this.toolUseId = m.toolUseId;
    this.packed = deflateText(JSON.stringify([m.text, m.meta]));
  }

  get text(): string {
    return this.read().text;
  }

  /** Decoded for this read: changing it changes nothing kept, and a later read gets a fresh copy. */
  get meta(): MessageMeta {
    let read = this.read();
    if (read.meta === null) {
      lastRead = null;
      read = this.read();
    }
    const meta = read.meta!;
    read.meta = null;
    return meta;
  }

  /** The write reads a message's meta and its text: one decoding serves both. */
  private read(): { text: string; meta: MessageMeta | null } {
    if (lastRead?.from !== this) {
      const [text, meta] = JSON.parse(inflateText(this.packed)) as [string, MessageMeta];
      lastRead = { from: this, text, meta };
    }
    return lastRead;
  }
}

let lastRead: { from: PackedMessage; text: string; meta: MessageMeta | null } | null = null;

/** The same message, its text and meta compressed (read-only from here on). */
export function packMessage(m: ConversationMessage): ConversationMessage {
  return m instanceof PackedMessage ? m : new PackedMessage(m);
}

export function isPacked(m: ConversationMessage): boolean {
  return m instanceof PackedMessage;
}

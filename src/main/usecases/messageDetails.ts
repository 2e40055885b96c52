/**
 * A timeline page carries each message without its long details (thinking, tool inputs and outputs): a page of
 * a few hundred rows stays small, and the Message region asks for the one message it shows with `message`,
 * which returns it whole.
 */
import type { Message, MessageMeta } from '../../shared/model';

const DETAIL_KEYS = ['thinking', 'toolCalls'] as const satisfies readonly (keyof MessageMeta)[];

export function withoutDetails(m: Message): Message {
  if (!m.meta || !DETAIL_KEYS.some((k) => m.meta![k] !== undefined)) return m;
  const meta = { ...m.meta };
  for (const k of DETAIL_KEYS) delete meta[k];
  return { ...m, meta };
}

/**
 * Long texts an import holds between reading and writing, deflated: whole file contents (a Write's `content`,
 * an Edit report's `originalFile`) that only the step reconstruction reads, once or twice each, and the
 * messages waiting for the write (packedMessage.ts). Text shrinks 3–5× at zlib's fastest level.
 *
 * The bytes are copied out into memory of their own size: zlib's result is a view of its output chunk, and a
 * small Buffer.from shares Node's 8 KiB pool with short-lived buffers — either kept many times the packed
 * bytes alive.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export function deflateText(text: string): Buffer {
  // Output chunks about the size of the result (text shrinks 3–5×): one or two rounds through zlib, and little
  // garbage outside the JavaScript heap for a short text (zlib's default chunk is 16 KiB).
  const chunkSize = Math.min(1 << 18, Math.max(1024, text.length >> 1));
  const deflated = deflateRawSync(text, { level: 1, chunkSize });
  const own = Buffer.allocUnsafeSlow(deflated.length);
  deflated.copy(own);
  return own;
}

export function inflateText(bytes: Buffer): string {
  return inflateRawSync(bytes).toString('utf8');
}

/** A long text kept deflated; `String(t)` or `t.toString()` gives it back. */
export class PackedText {
  private readonly bytes: Buffer;

  constructor(text: string) {
    this.bytes = deflateText(text);
  }

  toString(): string {
    return inflateText(this.bytes);
  }
}

/** A text as kept by the slimmer: a string, or packed. */
export const isText = (v: unknown): v is string | PackedText => typeof v === 'string' || v instanceof PackedText;

/** Its text (other values as they are). */
export function textOf<T>(v: T | PackedText): T | string {
  return v instanceof PackedText ? v.toString() : v;
}

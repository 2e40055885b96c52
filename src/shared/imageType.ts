/**
 * Which image a file is, from its first bytes (never from its name: a renamed executable is not a picture).
 * Shared by the service, which sends images to the renderer, and the renderer, which sees SVG as text.
 */
import type { ImageMime } from './model';

/** How far into a text file an SVG's root element may start (after an XML declaration, comments, a doctype). */
const SVG_HEAD_LIMIT = 64 * 1024;

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) =>
  b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = ascii('GIF87a');
const GIF89 = ascii('GIF89a');
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');

/** The image type of these bytes, or null for anything else (including text that is not SVG). */
export function sniffImageType(bytes: Uint8Array): ImageMime | null {
  if (startsWith(bytes, PNG)) return 'image/png';
  if (startsWith(bytes, JPEG)) return 'image/jpeg';
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return 'image/gif';
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'image/webp';
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, SVG_HEAD_LIMIT));
  return isSvgText(head) ? 'image/svg+xml' : null;
}

/**
 * Whether this text is an SVG document: its root element is <svg>, after at most a byte-order mark, white
 * space, an XML declaration, processing instructions, comments and a doctype.
 */
export function isSvgText(text: string): boolean {
  let rest = text.slice(0, SVG_HEAD_LIMIT).replace(/^\uFEFF/, '');
  for (;;) {
    rest = rest.trimStart();
    const skip = /^(<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE\s[^>[]*(\[[\s\S]*?\])?\s*>)/i.exec(rest);
    if (!skip) break;
    rest = rest.slice(skip[0].length);
  }
  return /^<svg[\s>/]/.test(rest) || /^<[A-Za-z_][\w.-]*:svg[\s>/]/.test(rest);
}

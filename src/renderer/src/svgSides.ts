/**
 * An SVG file is text and a picture: its pictures come from the text the diff already has (no second request),
 * as base64 for a data: URL, never inlined into the page.
 */
import { isSvgText } from '../../shared/imageType';
import type { FileContents, ImageSide, ImageSides } from '../../shared/model';

/** Both sides as pictures when either side is an SVG document; null for any other file. */
export function svgSides(file: FileContents): ImageSides | null {
  if (file.binary || file.tooLarge) return null;
  const isSvg = (t: string | null) => t !== null && isSvgText(t);
  if (!isSvg(file.before) && !isSvg(file.after)) return null;
  const side = (t: string | null): ImageSide | null => {
    if (t === null) return null;
    const bytes = new TextEncoder().encode(t);
    return isSvgText(t)
      ? { mime: 'image/svg+xml', size: bytes.length, base64: toBase64(bytes) }
      : { mime: null, size: bytes.length };
  };
  return { path: file.path, before: side(file.before), after: side(file.after) };
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

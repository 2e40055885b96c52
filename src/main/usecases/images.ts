/**
 * A file's two sides as pictures, for the Image diff: each side's bytes (base64) when they sniff as a PNG,
 * JPEG, GIF, WebP or SVG and fit under IMAGE_LIMIT; otherwise only its size (the UI keeps the binary notice).
 */
import { sniffImageType } from '../../shared/imageType';
import type { ImageSide, ImageSides } from '../../shared/model';
import type { WorkspaceEngine } from '../engine/workspaceEngine';
import { fileSides } from '../engine/read/contents';
import { resolveSide } from './compare';

/** Larger pictures are not sent: a base64 copy costs a third more, held in the page's memory. */
export const IMAGE_LIMIT = 20 * 1024 * 1024;

export async function imageSides(
  engine: WorkspaceEngine,
  from: string | null,
  to: string | 'working',
  path: string,
  oldPath?: string,
): Promise<ImageSides> {
  const sides = await fileSides(
    engine,
    await resolveSide(engine, from),
    await resolveSide(engine, to),
    path,
    oldPath,
    IMAGE_LIMIT,
  );
  const after =
    sides.after === 'too-large' ? { mime: null, size: IMAGE_LIMIT + 1, tooLarge: true } : toSide(sides.after);
  return { path: sides.rel, before: toSide(sides.before), after };
}

function toSide(read: { bytes: Buffer } | null): ImageSide | null {
  if (read === null) return null;
  const { bytes } = read;
  const mime = sniffImageType(bytes);
  if (bytes.length > IMAGE_LIMIT) return { mime, size: bytes.length, tooLarge: true };
  return mime ? { mime, size: bytes.length, base64: bytes.toString('base64') } : { mime, size: bytes.length };
}

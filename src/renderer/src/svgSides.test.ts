import { describe, expect, it } from 'vitest';
import { svgSides } from './svgSides';

const SVG_OLD = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>\n';
const SVG_NEW =
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><title>é</title></svg>\n';
const decode = (b64: string) => new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));

describe('svgSides', () => {
  it('makes both sides of an SVG change into pictures, sized in UTF-8 bytes, the text kept exactly', () => {
    const sides = svgSides({ path: 'logo.svg', binary: false, before: SVG_OLD, after: SVG_NEW });
    expect(sides?.before).toMatchObject({ mime: 'image/svg+xml', size: SVG_OLD.length });
    // "é" is two bytes.
    expect(sides?.after).toMatchObject({ mime: 'image/svg+xml', size: SVG_NEW.length + 1 });
    expect(decode(sides!.after!.base64!)).toBe(SVG_NEW);
    expect(decode(sides!.before!.base64!)).toBe(SVG_OLD);
  });

  it('an added SVG has no "before"; a side that is no longer SVG is said to be no picture', () => {
    expect(svgSides({ path: 'a.svg', binary: false, before: null, after: SVG_OLD })?.before).toBeNull();
    const broken = svgSides({ path: 'a.svg', binary: false, before: SVG_OLD, after: 'oops\n' });
    expect(broken?.after).toEqual({ mime: null, size: 5 });
  });

  it('leaves other files alone: text that is no SVG, binaries, oversized files', () => {
    expect(svgSides({ path: 'a.ts', binary: false, before: 'const a = 1;\n', after: 'const a = 2;\n' })).toBeNull();
    expect(svgSides({ path: 'a.svg', binary: true, before: null, after: null })).toBeNull();
    expect(svgSides({ path: 'a.svg', binary: false, before: null, after: null, tooLarge: true })).toBeNull();
  });
});

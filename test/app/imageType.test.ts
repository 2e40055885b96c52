import { describe, expect, it } from 'vitest';
import { solidPng } from '../helpers/png';
import { isSvgText, sniffImageType } from '../../src/shared/imageType';

const bytes = (...xs: (number | string)[]) =>
  new Uint8Array(xs.flatMap((x) => (typeof x === 'string' ? [...Buffer.from(x, 'latin1')] : [x])));

describe('sniffImageType', () => {
  it('knows PNG, JPEG, GIF and WebP by their magic bytes', () => {
    expect(sniffImageType(solidPng(2, [255, 0, 0, 255]))).toBe('image/png');
    expect(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'JFIF'))).toBe('image/jpeg');
    expect(sniffImageType(bytes('GIF89a', 1, 0, 1, 0))).toBe('image/gif');
    expect(sniffImageType(bytes('GIF87a', 1, 0, 1, 0))).toBe('image/gif');
    expect(sniffImageType(bytes('RIFF', 0x24, 0, 0, 0, 'WEBPVP8 '))).toBe('image/webp');
  });

  it('goes by the bytes, never the name: truncated or look-alike headers are not images', () => {
    expect(sniffImageType(bytes(0x89, 'PNG'))).toBeNull(); // a PNG signature cut short
    expect(sniffImageType(bytes('RIFF', 0x24, 0, 0, 0, 'WAVEfmt '))).toBeNull(); // RIFF, but audio
    expect(sniffImageType(bytes('GIF90a'))).toBeNull();
    expect(sniffImageType(bytes(0x7f, 'ELF', 2, 1, 1))).toBeNull();
    expect(sniffImageType(new Uint8Array())).toBeNull();
    expect(sniffImageType(Buffer.from('just some text <svg> later\n'))).toBeNull();
  });

  it('knows SVG by its root element, after a BOM, XML declaration, comments and doctype', () => {
    expect(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('image/svg+xml');
    const dressed =
      '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n' +
      '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n' +
      '<svg width="4" height="4"></svg>';
    expect(sniffImageType(Buffer.from(dressed))).toBe('image/svg+xml');
    expect(isSvgText('<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>')).toBe(true);
  });

  it('does not take other XML or HTML with an <svg> inside for an SVG file', () => {
    expect(isSvgText('<?xml version="1.0"?><html><svg/></html>')).toBe(false);
    expect(isSvgText('<svgfont/>')).toBe(false);
    expect(isSvgText('<!-- <svg> -->\n<div/>')).toBe(false);
  });
});

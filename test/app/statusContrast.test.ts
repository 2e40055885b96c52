/**
 * The file status letters (A, M, D, R) must be readable on a selected row and on the page, in both themes:
 * WCAG 2 contrast ≥ 4.5:1, computed from the colours styles.css actually declares.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const css = readFileSync(join(import.meta.dirname, '../../src/renderer/src/styles.css'), 'utf8');

/** The custom properties of the first block that follows `selector` (light: `:root {`, dark: the media query). */
function variables(block: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const m of block.matchAll(/(--[\w-]+):\s*(#[0-9a-fA-F]{6})\s*;/g)) vars.set(m[1]!, m[2]!.toLowerCase());
  return vars;
}

function themes(): { light: Map<string, string>; dark: Map<string, string> } {
  const lightBlock = /^:root \{([\s\S]*?)^\}/m.exec(css)![1]!;
  const darkBlock = /@media \(prefers-color-scheme: dark\) \{\s*:root \{([\s\S]*?)\}/.exec(css)![1]!;
  const light = variables(lightBlock);
  const dark = new Map([...light, ...variables(darkBlock)]);
  return { light, dark };
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

describe('status letter contrast', () => {
  it('computes WCAG contrast (black on white is 21:1; the old amber on the light selection was 2.6:1)', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#bf8700', '#dbeafe')).toBeCloseTo(2.58, 1);
  });

  for (const [theme, vars] of Object.entries(themes())) {
    for (const status of ['--st-added', '--st-deleted', '--st-modified', '--st-renamed']) {
      it(`${theme}: ${status} is at least 4.5:1 on the selected row and on the page`, () => {
        const fg = vars.get(status);
        expect(fg, `${status} declared in the ${theme} theme`).toBeDefined();
        expect(contrast(fg!, vars.get('--selected')!)).toBeGreaterThanOrEqual(4.5);
        expect(contrast(fg!, vars.get('--bg')!)).toBeGreaterThanOrEqual(4.5);
      });
    }
  }

  it('the status letters use those colours (not a fixed one)', () => {
    for (const cls of ['added', 'deleted', 'modified', 'renamed'])
      expect(css).toMatch(new RegExp(`\\.status-${cls}[^{]*\\{\\s*color: var\\(--st-`));
  });
});

/**
 * The built renderer's JavaScript diet: only Monaco's editor API, its Monarch grammars (lazy chunks) and the
 * editor worker ship — no TypeScript/JSON/CSS/HTML language services — and the first paint stays under 3 MiB,
 * without Monaco.
 * Reads the build (`npx electron-vite build`); skipped, saying so, when there is none.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
const built = existsSync(join(REPO, 'out/renderer/index.html'));

interface SizeReport {
  firstPaintBytes: number;
  firstPaintFiles: string[];
  workerFiles: string[];
  lazyChunks: number;
}

describe('renderer bundle', () => {
  it('loads Monaco through its editor API, never the main entry with every language service', () => {
    const source = readFileSync(join(REPO, 'src/renderer/src/monaco.ts'), 'utf8');
    const imports = [...source.matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
    expect(imports).toContain('monaco-editor/editor/editor.api');
    expect(imports).toContain('monaco-editor/basic-languages/monaco.contribution');
    expect(imports).not.toContain('monaco-editor');
    expect(imports.filter((i) => i.endsWith('?worker'))).toEqual(['monaco-editor/editor/editor.worker?worker']);
  });

  it.skipIf(!built)('ships the editor worker only, and at most 3 MiB of JavaScript before the first paint', () => {
    const report = JSON.parse(
      execFileSync(process.execPath, [join(REPO, 'scripts/renderer-js-size.mjs'), join(REPO, 'out/renderer')], {
        encoding: 'utf8',
      }),
    ) as SizeReport;
    expect(report.workerFiles).toHaveLength(1);
    expect(report.workerFiles[0]).toMatch(/^assets\/editor\.worker-[\w-]+\.js$/);
    expect(report.firstPaintBytes).toBeLessThanOrEqual(3 * 1024 * 1024);
    // The grammars stay lazy: one chunk per language, none of them in the first paint.
    expect(report.lazyChunks).toBeGreaterThan(50);
    expect(report.firstPaintFiles).toHaveLength(1);
    // The diff editor (Monaco, most of the JavaScript) loads once the first view is shown (components/MonacoDiff.tsx).
    const firstPaint = report.firstPaintFiles.map((f) => readFileSync(join(REPO, 'out/renderer', f), 'utf8')).join('');
    expect(firstPaint).not.toContain('createDiffEditor');
  });
});

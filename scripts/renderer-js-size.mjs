#!/usr/bin/env node
/**
 * How much JavaScript the built renderer (out/renderer) loads before its first paint: the module scripts and
 * modulepreload links of index.html, plus everything they import statically. Dynamic import() chunks (a
 * language's grammar, loaded when a file of that language is shown) and workers are counted apart.
 *
 *   node scripts/renderer-js-size.mjs [out/renderer]   → one JSON line
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'out/renderer');
const html = readFileSync(join(root, 'index.html'), 'utf8');

const entries = [
  ...html.matchAll(/<script[^>]*\stype="module"[^>]*\ssrc="([^"]+)"/g),
  ...html.matchAll(/<link[^>]*\srel="modulepreload"[^>]*\shref="([^"]+)"/g),
].map((m) => resolve(root, m[1]));

/** Static imports only: `import x from "./y.js"`, `export … from "./y.js"`, `import "./y.js"` (never `import(`). */
const STATIC_IMPORT = /(?:\bfrom\s*|\bimport\s*)["'](\.{1,2}\/[^"']+\.js)["']/g;

const firstPaint = new Set();
const queue = [...entries];
while (queue.length) {
  const file = queue.pop();
  if (firstPaint.has(file)) continue;
  firstPaint.add(file);
  for (const m of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) queue.push(resolve(dirname(file), m[1]));
}

const allJs = readdirSync(join(root, 'assets'))
  .filter((f) => f.endsWith('.js'))
  .map((f) => join(root, 'assets', f));
const size = (files) => files.reduce((sum, f) => sum + statSync(f).size, 0);
const workers = allJs.filter((f) => /\.worker-/.test(f) && !firstPaint.has(f));
const lazy = allJs.filter((f) => !firstPaint.has(f) && !workers.includes(f));

console.log(
  JSON.stringify({
    firstPaintBytes: size([...firstPaint]),
    firstPaintFiles: [...firstPaint].map((f) => relative(root, f)).sort(),
    workerBytes: size(workers),
    workerFiles: workers.map((f) => relative(root, f)).sort(),
    lazyChunkBytes: size(lazy),
    lazyChunks: lazy.length,
    totalJsBytes: size(allJs),
  }),
);

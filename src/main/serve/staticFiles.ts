/**
 * Finding and typing the built renderer's files (out/renderer). Shared by `retrace serve` and the Electron
 * app protocol, so both refuse the same paths: nothing outside the renderer folder, no dot-files.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

export function contentType(path: string): string {
  return MIME[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Find a build output (e.g. "renderer/index.html", "main/index.js") from a bundled module. Bundles live at
 * different depths (out/cli/retrace.js, out/cli/chunks/x.js, out/main/index.js), so walk up from the calling
 * module looking for `<dir>/<rel>` or `<dir>/out/<rel>`.
 */
export function findBuildOutput(fromModuleUrl: string, rel: string): string | null {
  let dir = dirname(fileURLToPath(fromModuleUrl));
  for (let i = 0; i < 6; i++) {
    for (const candidate of [join(dir, rel), join(dir, 'out', rel)]) {
      if (existsSync(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/** The built renderer folder (out/renderer); RETRACE_RENDERER_DIR overrides, for packaging. */
export function findRendererDir(fromModuleUrl: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.RETRACE_RENDERER_DIR) {
    return existsSync(join(env.RETRACE_RENDERER_DIR, 'index.html')) ? resolve(env.RETRACE_RENDERER_DIR) : null;
  }
  const index = findBuildOutput(fromModuleUrl, join('renderer', 'index.html'));
  return index ? dirname(index) : null;
}

/**
 * Map a URL path (already stripped of any token prefix) to a file inside `root`, or null when it would leave
 * the folder or names a hidden file. "/" and "" mean index.html.
 */
export function resolveStaticPath(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((s) => s.length > 0);
  if (segments.some((s) => s === '..' || s.startsWith('.'))) return null;
  const rel = segments.length === 0 ? 'index.html' : segments.join('/');
  const base = resolve(root);
  const full = resolve(base, rel);
  if (full !== base && !full.startsWith(base + sep)) return null;
  return full;
}

/** Read a static file; null when absent (or a directory). */
export async function readStaticFile(root: string, urlPath: string): Promise<{ body: Buffer; type: string } | null> {
  const full = resolveStaticPath(root, urlPath);
  if (!full) return null;
  try {
    return { body: await readFile(full), type: contentType(full) };
  } catch {
    return null;
  }
}

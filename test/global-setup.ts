import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Build the CLI bundle so tests drive exactly what users run — only when a source is newer than the bundle:
 * `npm test` has just built it, and rebuilding under another vitest run's feet broke its CLI calls.
 */
export default function setup(): void {
  const bundle = Math.min(mtime('out/cli/retrace.js'), mtime('out/cli/hook-client.cjs'));
  const sources = Math.max(newest('src'), mtime('scripts/build-cli.mjs'), mtime('package-lock.json'));
  if (bundle === 0 || sources > bundle) {
    execFileSync(process.execPath, ['scripts/build-cli.mjs'], { stdio: 'inherit' });
  }
}

function mtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function newest(dir: string): number {
  let max = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    max = Math.max(max, e.isDirectory() ? newest(p) : mtime(p));
  }
  return max;
}

/**
 * Temporary folders for tests. Every folder made here is removed by `cleanupTempDirs()` (call it in
 * afterAll/afterEach), including read-only ones: permissions are restored first so cleanup never fails.
 */
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A fresh, real (symlink-free) temp folder. */
export function tempDir(prefix = 'retrace-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** A temp RETRACE_HOME (data directory), distinct from any workspace. */
export function tempHome(): string {
  return tempDir('retrace-home-');
}

export function cleanupTempDirs(): void {
  for (const dir of made) removeTree(dir);
  made.clear();
}

/** rm -rf that first makes folders writable again (tests chmod things read-only). */
export function removeTree(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
    return;
  } catch {
    // fall through: restore write permission, then try again
  }
  restoreWritable(dir);
  rmSync(dir, { recursive: true, force: true });
}

function restoreWritable(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (!st.isDirectory()) return;
  try {
    chmodSync(path, 0o755);
  } catch {
    return;
  }
  for (const name of readdirSync(path)) restoreWritable(join(path, name));
}

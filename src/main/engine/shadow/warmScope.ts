/**
 * The warm path for incremental snapshots (engineer E; hooked into snapshot.ts).
 *
 * A cold snapshot asks git to compare the whole index with the disk and walk every folder for new files
 * (`ls-files --modified --deleted --others`): at 100k files that stat walk is most of a checkpoint. When the
 * caller already knows which paths changed — a hook's tool input (Edit/Write name their file), the app's file
 * watcher — the same git command runs limited to those paths (a literal pathspec). git still makes its own
 * check on each of them (stat against the index, the ignore rules for new files), so a hint that names an
 * unchanged file changes nothing, and one that names an ignored file captures nothing.
 *
 * What a hint cannot see (a file changed at the same time by someone else) is caught by a full scan, which
 * runs instead of the warm one when any of these holds:
 *  - no hints were given (Bash tools, `retrace checkpoint`, restores' safety checkpoints, diffs to "working");
 *  - the index is empty (a first snapshot), or a hint names an ignore file, or the shadow's exclude file
 *    (defaults + .retraceignore) differs from the one the last full scan ran with — that full scan also
 *    removed what those rules exclude, so a warm snapshot needs no ignore sweep of its own;
 *  - a hint is not a plain workspace-relative path, or there are more than MAX_HINTS of them;
 *  - WARM_MAX_STREAK warm snapshots ran since the last full one, or it is older than WARM_MAX_AGE_MS.
 * So a checkpoint is never more than WARM_MAX_STREAK hook calls or a minute behind an unhinted change, and a
 * restore never loses one: its safety checkpoint is always a full scan.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { hasGitSegment } from '../excludes';
import { indexIsEmpty } from './fastFirstSnapshot';

export const WARM_MAX_STREAK = 20;
export const WARM_MAX_AGE_MS = 60_000;
export const MAX_HINTS = 256;
const STATE_FILE = 'retrace-scan.json';
const RULE_FILES = new Set(['.gitignore', '.retraceignore', '.gitmodules']);

interface ScanState {
  /** When the last full scan started (ms since the epoch). */
  lastFullAt: number;
  /** Warm snapshots since then. */
  warmSinceFull: number;
  /** sha1 of <gitDir>/info/exclude when it ran. */
  excludes: string;
}

async function excludesHash(gitDir: string): Promise<string> {
  const bytes = await fs.readFile(path.join(gitDir, 'info', 'exclude')).catch(() => Buffer.alloc(0));
  return createHash('sha1').update(bytes).digest('hex');
}

async function readState(gitDir: string): Promise<ScanState | null> {
  try {
    const s = JSON.parse(await fs.readFile(path.join(gitDir, STATE_FILE), 'utf8')) as Partial<ScanState>;
    return typeof s.lastFullAt === 'number' && typeof s.warmSinceFull === 'number' && typeof s.excludes === 'string'
      ? { lastFullAt: s.lastFullAt, warmSinceFull: s.warmSinceFull, excludes: s.excludes }
      : null;
  } catch {
    return null; // missing or damaged: the next snapshot is a full one
  }
}

function isPlainRelative(p: string): boolean {
  if (p === '' || p.startsWith('/') || p.includes('\\') || p.includes('\0')) return false;
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/**
 * The paths this snapshot may limit itself to, or null for a full scan. `[]` is a valid answer: the caller
 * says nothing changed, and git is not asked at all.
 */
export async function warmScope(
  gitDir: string,
  hintPaths: readonly string[] | undefined,
  now: number = Date.now(),
): Promise<string[] | null> {
  if (!hintPaths || process.env.RETRACE_FAST_PATHS === '0') return null;
  if (hintPaths.length > MAX_HINTS) return null;
  for (const p of hintPaths) {
    if (!isPlainRelative(p) || hasGitSegment(p) || RULE_FILES.has(p.slice(p.lastIndexOf('/') + 1))) return null;
  }
  const state = await readState(gitDir);
  if (!state || state.warmSinceFull >= WARM_MAX_STREAK || now - state.lastFullAt > WARM_MAX_AGE_MS) return null;
  if (state.excludes !== (await excludesHash(gitDir))) return null;
  if (await indexIsEmpty(gitDir)) return null;
  return [...new Set(hintPaths)].sort();
}

/** Record that a snapshot ran, warm (scoped) or full. Written after the snapshot's tree exists. */
export async function recordScan(gitDir: string, scoped: boolean, now: number = Date.now()): Promise<void> {
  const prev = scoped ? await readState(gitDir) : null;
  const next: ScanState =
    scoped && prev
      ? { ...prev, warmSinceFull: prev.warmSinceFull + 1 }
      : { lastFullAt: now, warmSinceFull: 0, excludes: await excludesHash(gitDir) };
  const file = path.join(gitDir, STATE_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(next));
  await fs.rename(tmp, file);
}

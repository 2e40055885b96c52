/**
 * When no hook server runs, Claude Code's HTTP hook calls (PostToolUse, Stop) are refused and lost: Claude
 * Code treats a refused connection as a non-blocking error and does not retry. Their file changes are not
 * lost (the next checkpoint snapshots the whole folder), but the timeline must show the gap (I10).
 *
 * What is detected, exactly: a server writes <hook-server>/stopped (the time) when it exits and removes it
 * when one starts; a server killed outright leaves its pid file behind instead. The hook client, finding no
 * server, reads that before starting one and hands the time (or "unknown") to the hook it runs in-process
 * as RETRACE_HOOK_SERVER_DOWN_SINCE. The Claude Code hook then marks the gap (claude-code/serverGap.ts).
 *
 * Imports node: built-ins only (and privateFs.ts, which does too): the client is bundled alone.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFilePrivateSync } from '../../engine/privateFs';
import { pidAlive } from '../../engine/pidAlive';
import type { HookServerPaths } from './paths';

/** Set by the client for the hook it runs in-process after finding no server: since when none ran. */
export const SERVER_DOWN_ENV = 'RETRACE_HOOK_SERVER_DOWN_SINCE';

function stoppedFile(paths: HookServerPaths): string {
  return path.join(paths.dir, 'stopped');
}

export function markServerStarted(paths: HookServerPaths): void {
  rmSync(stoppedFile(paths), { force: true });
}

export function markServerStopped(paths: HookServerPaths): void {
  try {
    writeFilePrivateSync(stoppedFile(paths), new Date().toISOString());
  } catch {
    // No folder: the pid file tells the same (below), without the time.
  }
}

/**
 * Since when no server has run (an ISO time, or "unknown" when the last one died without a word), or null
 * when none ever ran for this data home (nothing could have been sent to it).
 */
export function serverDownSince(paths: HookServerPaths): string | null {
  try {
    return readFileSync(stoppedFile(paths), 'utf8').trim() || 'unknown';
  } catch {
    // No clean exit recorded: a pid file whose process is gone is a server that was killed.
  }
  try {
    return pidAlive(Number(readFileSync(paths.pidFile, 'utf8'))) ? null : 'unknown';
  } catch {
    return null;
  }
}

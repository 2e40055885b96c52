/**
 * Where a Retrace session came from in Claude Code (transcript path, Claude session id, cwd), kept beside the
 * session log in the integration's own folder: `<ws.dir>/integrations/claude-code/<sessionId>.json`. The
 * fork on conversation restore needs it; the engine's session format stays source-agnostic.
 */
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { mkdirPrivateSync, writeFilePrivateSync } from '../../engine/privateFs';
import type { WorkspaceRef } from '../../engine/workspace';

export interface ClaudeOrigin {
  kind: 'claude-code';
  transcript: string;
  sessionId: string;
  cwd: string;
}

function originFile(ws: WorkspaceRef, sessionId: string): string {
  return join(ws.dir, 'integrations', 'claude-code', `${sessionId}.json`);
}

export function saveOrigin(ws: WorkspaceRef, session: string, origin: ClaudeOrigin): void {
  const file = originFile(ws, session);
  const text = JSON.stringify(origin, null, 2) + '\n';
  try {
    if (readFileSync(file, 'utf8') === text) return; // the hook calls this on every event: write once
  } catch {
    // not there yet
  }
  mkdirPrivateSync(join(ws.dir, 'integrations', 'claude-code'));
  const tmp = `${file}.tmp-${process.pid}`;
  writeFilePrivateSync(tmp, text);
  renameSync(tmp, file);
}

export function loadOrigin(ws: WorkspaceRef, session: string): ClaudeOrigin | null {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(session)) return null;
  try {
    const o = JSON.parse(readFileSync(originFile(ws, session), 'utf8')) as Partial<ClaudeOrigin>;
    if (o.kind !== 'claude-code' || typeof o.transcript !== 'string' || typeof o.sessionId !== 'string') return null;
    return {
      kind: 'claude-code',
      transcript: o.transcript,
      sessionId: o.sessionId,
      cwd: typeof o.cwd === 'string' ? o.cwd : '',
    };
  } catch {
    return null;
  }
}

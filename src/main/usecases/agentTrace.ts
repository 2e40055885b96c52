/**
 * `retrace export --agent-trace`: the blame of every file a recorded step changed, as one Agent Trace record
 * (the open format that ties line ranges to conversations: https://github.com/cursor/agent-trace, v0.1.0).
 * How Retrace's fields map onto it is written down in docs/formats.md ("Agent Trace export").
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isRetraceError } from '../../shared/errors';
import type { BlameLine } from '../../shared/model';
import { toRetraceError } from '../engine/git/errors';
import { blameFile, chainTips } from '../engine/read/blame';
import { pathsChangedBySteps } from '../engine/read/stepPaths';
import type { WorkspaceEngine } from '../engine/workspaceEngine';

export interface TraceRange {
  start_line: number;
  end_line: number;
  content_hash: string;
}
export interface TraceConversation {
  url?: string;
  contributor: { type: 'ai' | 'human' };
  ranges: TraceRange[];
  related?: { type: string; url: string }[];
}
export interface TraceRecord {
  version: string;
  id: string;
  timestamp: string;
  tool: { name: string };
  files: { path: string; conversations: TraceConversation[] }[];
  metadata: Record<string, unknown>;
}

export const AGENT_TRACE_VERSION = '0.1.0';

export async function exportAgentTrace(engine: WorkspaceEngine, opts: { session?: string } = {}): Promise<TraceRecord> {
  // git's own failures arrive as GitErrors: give them their codes (E_GIT, E_CORRUPT…), never E_INTERNAL.
  return buildRecord(engine, opts).catch((e: unknown) => {
    throw toRetraceError(e);
  });
}

async function buildRecord(engine: WorkspaceEngine, opts: { session?: string }): Promise<TraceRecord> {
  const sessions = await engine.sessions.readAll();
  // The same check blame makes (E_UNKNOWN_SESSION), before any work.
  if (opts.session !== undefined) await engine.session(opts.session);
  const tips = await chainTips(engine, sessions, opts.session);
  const files: TraceRecord['files'] = [];
  for (const rel of await pathsChangedBySteps(engine, tips)) {
    let lines: BlameLine[];
    try {
      lines = (await blameFile(engine, rel, opts)).lines;
    } catch (e) {
      // Deleted since, binary, or no longer a plain file: nothing line-based to attribute.
      if (isRetraceError(e) && ['E_NOT_FOUND', 'E_BINARY', 'E_INVALID_INPUT'].includes(e.code)) continue;
      throw e;
    }
    const text = (await readFile(path.join(engine.ws.root, rel), 'utf8')).split('\n');
    const conversations = toConversations(lines, text);
    if (conversations.length > 0) files.push({ path: rel, conversations });
  }
  return {
    version: AGENT_TRACE_VERSION,
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    tool: { name: 'retrace' },
    files,
    metadata: {
      'dev.retrace': {
        workspace: engine.ws.root,
        // Line numbers are those of the files as they are now (the working tree), not of a git revision.
        revision: 'working',
        ...(opts.session !== undefined ? { session: opts.session } : {}),
      },
    },
  };
}

/**
 * One conversation entry per recorded step (its url names the session and the message), plus one for lines
 * changed since the last checkpoint; ranges are runs of consecutive lines of that step. Baseline lines (older
 * than the first checkpoint) are nobody's contribution here and are left out.
 */
function toConversations(lines: BlameLine[], text: string[]): TraceConversation[] {
  const byStep = new Map<string, TraceConversation>();
  let run: { key: string; start: number; end: number } | null = null;
  const close = (): void => {
    if (!run) return;
    const body = text.slice(run.start - 1, run.end).join('\n');
    byStep.get(run.key)!.ranges.push({
      start_line: run.start,
      end_line: run.end,
      content_hash: `sha256:${createHash('sha256').update(body).digest('hex').slice(0, 16)}`,
    });
    run = null;
  };
  for (const l of lines) {
    if (l.origin === 'baseline') {
      close();
      continue;
    }
    const key = l.hash ?? 'uncaptured';
    if (!byStep.has(key)) byStep.set(key, conversationOf(l));
    if (run && run.key === key && run.end === l.line - 1) run.end = l.line;
    else {
      close();
      run = { key, start: l.line, end: l.line };
    }
  }
  close();
  return [...byStep.values()];
}

function conversationOf(l: BlameLine): TraceConversation {
  const contributor = { type: l.origin === 'agent' ? ('ai' as const) : ('human' as const) };
  if (!l.hash) return { contributor, ranges: [] };
  const session = l.session ? `retrace://sessions/${encodeURIComponent(l.session)}` : null;
  return {
    ...(session && l.message ? { url: `${session}/messages/${encodeURIComponent(l.message)}` } : {}),
    contributor,
    ranges: [],
    related: [
      ...(session ? [{ type: 'session', url: session }] : []),
      { type: 'checkpoint', url: `retrace://checkpoints/${l.hash}` },
      ...(l.agent ? [{ type: 'agent', url: `retrace://agents/${l.agent}` }] : []),
      ...(l.role ? [{ type: 'role', url: `retrace://roles/${l.role}` }] : []),
    ],
  };
}

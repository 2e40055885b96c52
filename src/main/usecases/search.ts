/**
 * "Find anything" (`retrace search`, the app's search box): a case-insensitive match over the messages' text,
 * the labels of their checkpoints, and the paths each checkpoint changed against the previous one. Rewound
 * messages are found too and marked `hidden` (unless the caller lists visible messages only, as the timeline does
 * while "Show rewound" is off). The changed paths come from one `diff-tree --stdin` for every checkpoint of the
 * searched sessions, remembered per commit by the shadow repository (commits never change).
 *
 * The app's filters ("Prompts only", "Changes only") use the same pass: an empty query with a filter lists the
 * rows the filter keeps, with their `index` in the timeline's list.
 */
import { RetraceError } from '../../shared/errors';
import type { Message, Role, SearchHit, SearchResult } from '../../shared/model';
import { readLabels } from '../engine/labels';
import { unavailable } from '../engine/read/resolve';
import type { SessionState } from '../engine/sessions/replay';
import type { WorkspaceEngine } from '../engine/workspaceEngine';

export const QUERY_MAX = 500;
export const DEFAULT_LIMIT = 100;
const SNIPPET_BEFORE = 40;
const SNIPPET_AFTER = 80;

export interface SearchRequest {
  /** Matched case-insensitively as a plain substring; '' matches every message the filters keep. */
  query: string;
  /** One session; default: every session of the workspace, the most recently updated first. */
  session?: string;
  limit?: number;
  /** Default true: rewound messages are searched too (and marked). */
  includeHidden?: boolean;
  /** Keep only messages of these roles ("Prompts only": ['user']). */
  roles?: Role[];
  /** Keep only checkpoints that changed files ("Changes only"). */
  changesOnly?: boolean;
}

export async function search(engine: WorkspaceEngine, req: SearchRequest): Promise<SearchResult> {
  if (req.query.length > QUERY_MAX)
    throw new RetraceError('E_INVALID_INPUT', `a search is at most ${QUERY_MAX} characters`);
  const limit = req.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new RetraceError('E_INVALID_INPUT', 'the limit must be 1 or more');
  const q = req.query.trim().toLowerCase();
  const includeHidden = req.includeHidden !== false;
  const states = req.session !== undefined ? [await engine.session(req.session)] : await allSessions(engine);

  const hashes = q === '' ? [] : checkpointHashes(states);
  const lost = hashes.length > 0 ? await unavailable(engine) : new Set<string>();
  const [labels, paths] = await Promise.all([
    readLabels(engine),
    hashes.length > 0
      ? engine.shadow().then((shadow) => shadow.changedPaths(hashes.filter((h) => !lost.has(h))))
      : new Map<string, string[]>(),
  ]);

  const hits: SearchHit[] = [];
  let total = 0;
  for (const state of states) {
    let index = -1;
    for (const m of state.messages) {
      if (m.hidden && !includeHidden) continue;
      index++;
      if (!keptByFilters(m, req)) continue;
      const label = m.hash ? labels.get(m.hash) : undefined;
      const matchedPaths =
        q === '' || !m.hash ? [] : (paths.get(m.hash) ?? []).filter((p) => p.toLowerCase().includes(q));
      const inText = q === '' || m.text.toLowerCase().includes(q);
      if (!inText && matchedPaths.length === 0 && !label?.toLowerCase().includes(q)) continue;
      total++;
      if (hits.length >= limit) continue;
      const hit: SearchHit = {
        session: state.header.id,
        message: m.id,
        ts: m.ts,
        role: m.role,
        snippet: snippet(m.text, inText ? q : ''),
        hash: m.hash,
        paths: matchedPaths,
        index,
      };
      if (m.hidden) hit.hidden = true;
      if (label) hit.label = label;
      hits.push(hit);
    }
  }
  return { hits, total };
}

async function allSessions(engine: WorkspaceEngine): Promise<SessionState[]> {
  const states = await engine.sessions.readAll();
  return states.sort((a, b) =>
    a.updatedAt !== b.updatedAt ? (a.updatedAt < b.updatedAt ? 1 : -1) : a.header.id < b.header.id ? 1 : -1,
  );
}

function checkpointHashes(states: SessionState[]): string[] {
  const out = new Set<string>();
  for (const s of states) for (const m of s.messages) if (m.hash) out.add(m.hash);
  return [...out];
}

function keptByFilters(m: Message, req: SearchRequest): boolean {
  if (req.roles && !req.roles.includes(m.role)) return false;
  // A checkpoint without stats (an old log) may have changed something: kept rather than lost from view.
  if (req.changesOnly && (!m.hash || (m.stats !== undefined && m.stats.files === 0))) return false;
  return true;
}

/** The text on one line, around the first match of `q` ('' or not found: from the start). */
export function snippet(text: string, q: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const at = q === '' ? -1 : flat.toLowerCase().indexOf(q);
  const start = at < 0 ? 0 : Math.max(0, at - SNIPPET_BEFORE);
  const end = Math.min(flat.length, (at < 0 ? 0 : at + q.length) + SNIPPET_AFTER + (at < 0 ? SNIPPET_BEFORE : 0));
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}

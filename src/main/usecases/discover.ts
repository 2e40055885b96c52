/**
 * Discovery (issue 13): every session of every supported agent whose working folder is this workspace, whether
 * it is in Retrace already and whether it went on since; and bringing them in. The CLI (`retrace discover`) and,
 * later, the app's "found N sessions" offer call this.
 *
 * Bringing a changed session up to date is a re-import with replace: the importers rebuild a session from the
 * whole transcript, and the session keeps the agent's own id, so a transcript that grew becomes the same session
 * with its new messages and nothing doubled. (What that re-import gives up: a conversation restore made in
 * Retrace on that session; the transcript is the record.)
 */
import { findClaudeCodeSessions } from '../integrations/discover/claudeCode';
import { findClineSessions } from '../integrations/discover/cline';
import { findCodexSessions } from '../integrations/discover/codex';
import type { DiscoverAgent, FoundSession, Place } from '../integrations/discover/found';
import { findGeminiSessions } from '../integrations/discover/gemini';
import { ImportedState, stampOf } from '../integrations/discover/importedState';
import type { ImportOutcome } from '../integrations/importSession';
import type { WorkspaceRef } from '../engine/workspace';
import { WorkspaceEngine } from '../engine/workspaceEngine';
import { toErrorInfo } from '../../shared/errors';

export interface DiscoveredSession {
  agent: DiscoverAgent;
  path: string;
  id: string;
  title: string;
  updatedAt: string;
  imported: boolean;
  changed: boolean;
}

export interface DiscoverOptions {
  ws: WorkspaceRef;
  /** The folder as the user named it, before symlinks were resolved (agents may have recorded that spelling). */
  given?: string[];
  /** Where agents keep their sessions follows their variables (CLAUDE_CONFIG_DIR, CODEX_HOME, …) and HOME. */
  env?: NodeJS.ProcessEnv;
}

/** What `--import` did with one session. */
export interface DiscoverImportResult extends DiscoveredSession {
  action: 'imported' | 'updated' | 'unchanged' | 'failed';
  error?: { code: string; message: string };
  messages?: number;
  checkpoints?: number;
}

const LOCATORS = [findClaudeCodeSessions, findCodexSessions, findGeminiSessions, findClineSessions];

function found(opts: DiscoverOptions): FoundSession[] {
  const env = opts.env ?? process.env;
  const place: Place = {
    root: opts.ws.root,
    caseInsensitive: opts.ws.caseInsensitive,
    spellings: [...new Set(opts.given ?? [])].filter((p) => p !== opts.ws.root),
  };
  return LOCATORS.flatMap((find) => find(place, env)).sort(
    (a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.agent.localeCompare(b.agent) || a.id.localeCompare(b.id),
  );
}

export function discoverSessions(opts: DiscoverOptions): DiscoveredSession[] {
  const engine = new WorkspaceEngine(opts.ws);
  const state = new ImportedState(opts.ws.dir);
  return found(opts).map((s) => describe(s, engine, state));
}

export interface ImportDiscoveredOptions extends DiscoverOptions {
  dataHome: string;
  /** Only this session (its id; `agent:id` where two agents share an id); default: every one found. */
  only?: string;
  /** Called before each import and once at the end (`current` null), for a progress display. */
  onProgress?: (done: number, total: number, current: DiscoveredSession | null) => void;
}

/** Import the sessions that are new, re-import the changed ones, one by one (each import takes the lock). */
export async function importDiscovered(opts: ImportDiscoveredOptions): Promise<DiscoverImportResult[]> {
  const engine = new WorkspaceEngine(opts.ws);
  const state = new ImportedState(opts.ws.dir);
  const out: DiscoverImportResult[] = [];
  const list = found(opts).filter(
    (s) => opts.only === undefined || opts.only === s.id || opts.only === `${s.agent}:${s.id}`,
  );
  for (const s of list) {
    const before = describe(s, engine, state);
    opts.onProgress?.(out.length, list.length, before);
    if (before.imported && !before.changed) {
      out.push({ ...before, action: 'unchanged' });
      continue;
    }
    const stamp = stampOf(s.transcript);
    try {
      const res = await importOne(s, {
        cwd: opts.ws.root,
        dataHome: opts.dataHome,
        replace: before.imported,
        env: opts.env ?? process.env,
      });
      if (stamp) state.record(s, stamp);
      out.push({
        ...describe(s, engine, state),
        action: before.imported ? 'updated' : 'imported',
        messages: res.messages,
        checkpoints: res.checkpoints,
      });
    } catch (e) {
      // One unreadable transcript does not stop the others; it is reported with its code.
      out.push({ ...before, action: 'failed', error: toErrorInfo(e) });
    }
  }
  opts.onProgress?.(out.length, list.length, null);
  return out;
}

function describe(s: FoundSession, engine: WorkspaceEngine, state: ImportedState): DiscoveredSession {
  const imported = engine.sessions.exists(s.id);
  return {
    agent: s.agent,
    path: s.path,
    id: s.id,
    title: s.title,
    updatedAt: s.updatedAt,
    imported,
    changed: imported && state.changed(s),
  };
}

interface ImportArgs {
  cwd: string;
  dataHome: string;
  replace: boolean;
  env: NodeJS.ProcessEnv;
}

/** The agent's own importer (only its exported import function), loaded when needed. */
async function importOne(s: FoundSession, a: ImportArgs): Promise<ImportOutcome> {
  const common = { cwd: a.cwd, dataHome: a.dataHome, replace: a.replace };
  switch (s.agent) {
    case 'claude-code': {
      const { importClaudeCode } = await import('../integrations/claude-code/import');
      return importClaudeCode({ file: s.path, env: a.env, ...common });
    }
    case 'codex': {
      const { importCodex } = await import('../integrations/codex/import');
      return importCodex({ file: s.path, ...common });
    }
    case 'gemini': {
      const { importGemini } = await import('../integrations/gemini/import');
      return importGemini({ file: s.path, ...common });
    }
    case 'cline': {
      const { importCline } = await import('../integrations/cline/import');
      return importCline({ taskDir: s.path, ...common });
    }
  }
}

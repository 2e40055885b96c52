/**
 * `retrace import claude-code FILE.jsonl`: a Claude Code transcript becomes a Retrace session of the
 * transcript's workspace (its `cwd`, or --cwd), id = the Claude session id, with one checkpoint per user
 * prompt and per file-changing step. Each checkpoint is the workspace as it is now (a snapshot taken at
 * import) with the files the agent touched set to their content at that step, as far as the transcript and
 * the file-history backups tell — so "This step" shows what the agent changed, and restoring a step
 * changes only files the agent touched. A session already in the workspace (imported, or recorded by the
 * hooks) is left as it is with a clear message, unless `replace` is given.
 */
import { closeSync, existsSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { MessageMeta } from '../../../shared/model';
import { isHardExcluded } from '../../engine/excludes';
import { isValidSessionId } from '../../engine/sessions/ids';
import { TreeBuilder, type TreeEdit } from '../../engine/shadow/buildTree';
import { resolveWorkspace } from '../../engine/workspace';
import { WorkspaceEngine } from '../../engine/workspaceEngine';
import {
  alreadyImported,
  removeSession,
  writeImportedSession,
  type ImportMessage,
  type ImportOutcome,
} from '../importSession';
import { readConversation, type Conversation, type HiddenReason } from './conversation';
import type { ConversationMessage } from './types';
import { isTalk } from './labels';
import { collectNow } from './memory';
import { saveOrigin } from './origin';
import { backupReader } from './paths';
import { reconstructSteps, type EditAccount, type FileState } from './reconstruct';

/** Messages written between two full collections (each costs tens of milliseconds). */
const COLLECT_EVERY_MESSAGES = 2000;

export interface ClaudeImportOptions {
  file: string;
  /** The workspace; default: the transcript's cwd. */
  cwd?: string;
  dataHome: string;
  env?: NodeJS.ProcessEnv;
  /** Import again over an earlier import of the same session. */
  replace?: boolean;
}

export interface ClaudeImportResult extends ImportOutcome {
  /** Files rebuilt at some step, and each file edit that could not be (with why). */
  reconstructed: { files: string[]; missing: { path: string; reason: string }[] };
}

/** The import's result with what it was made from (the conformance tool reads these). */
export interface ClaudeImportDetails {
  result: ClaudeImportResult;
  /** Main-thread user/assistant lines left off the timeline, by reason. */
  hiddenTalk: Record<HiddenReason, number>;
  /** Every successful file edit of the transcript and where it ended up. */
  edits: EditAccount[];
}

export async function importClaudeCode(opts: ClaudeImportOptions): Promise<ClaudeImportResult> {
  return (await importClaudeCodeDetailed(opts)).result;
}

/**
 * The transcript read and its steps rebuilt: all the write needs, and nothing of the transcript's lines
 * (a long one's lines are then free while the shadow repository is written).
 */
async function prepare(opts: ClaudeImportOptions) {
  const conv = await readTranscript(opts.file);
  const sideOf = conv.mainChain.length === 0 && conv.stats.sidechainLines > 0 ? sessionIdOf(head(opts.file)) : null;
  if (sideOf) throw new RetraceError('E_IMPORT', subagentOnly(opts.file, sideOf));
  if (conv.mainChain.length === 0)
    throw new RetraceError(
      'E_IMPORT',
      `${opts.file} holds no Claude Code conversation (${conv.stats.lines} line(s) read)`,
    );
  const session = conv.sessionId ?? basename(opts.file).replace(/\.jsonl$/, '');
  if (!isValidSessionId(session))
    throw new RetraceError('E_IMPORT', `the transcript's session id is not usable: ${session}`);
  const cwd = opts.cwd ?? conv.cwd;
  if (!cwd)
    throw new RetraceError('E_IMPORT', 'the transcript does not say its workspace (no cwd); give one with --cwd');
  const rec = reconstructSteps(conv, { readBackup: backupReader(session, opts.env ?? process.env) });
  const hiddenTalk: Record<HiddenReason, number> = { rewind: 0, other: 0 };
  const talk = new Set(conv.lines.filter(isTalk).map((l) => l.uuid));
  for (const [uuid, why] of conv.hiddenLines) if (talk.has(uuid)) hiddenTalk[why]++;
  return {
    session,
    cwd,
    transcriptCwd: conv.cwd,
    title: conv.title,
    messages: conv.messages,
    rec,
    hiddenTalk,
    warnings: [...conv.warnings, ...rec.warnings],
  };
}

export async function importClaudeCodeDetailed(opts: ClaudeImportOptions): Promise<ClaudeImportDetails> {
  const { session, cwd, transcriptCwd, title, messages: convMessages, rec, hiddenTalk, warnings } = await prepare(opts);
  collectNow(); // the transcript's lines are garbage now: free them before the write builds the log
  const ws = await resolveWorkspace(cwd, { dataHome: opts.dataHome }).catch((e: unknown) => {
    // The transcript's folder may be gone or on another machine: say how to point the import elsewhere.
    if (!opts.cwd && e instanceof RetraceError && (e.code === 'E_NOT_FOUND' || e.code === 'E_NOT_A_DIRECTORY'))
      throw new RetraceError(e.code, `${e.message} (the transcript's cwd); give the workspace with --cwd`);
    throw e;
  });
  const engine = new WorkspaceEngine(ws, { actor: 'retrace import' });
  const allRebuilt = new Set<string>();
  const edits = rec.edits.map((e) =>
    e.status === 'rebuilt' && isHardExcluded(e.path)
      ? { ...e, status: 'missing' as const, reason: 'excluded from checkpoints' }
      : e,
  );
  const missing = uniqueMissing(edits);
  const details = (result: ClaudeImportResult): ClaudeImportDetails => ({ result, hiddenTalk, edits });

  return engine.write(async () => {
    if (engine.sessions.exists(session)) {
      if (!opts.replace) {
        return details(await alreadyImported(engine, session));
      }
      await removeSession(engine, session);
    }
    const shadow = await engine.shadow();
    const base = (await shadow.snapshotTree()).tree;
    const checkpointAt = new Map(rec.checkpoints.map((c) => [c.messageIndex, c]));
    rec.checkpoints.length = 0; // held by checkpointAt alone, which lets each go once its step is written
    const paths = rec.touched.filter((p) => !isHardExcluded(p));
    const excluded = rec.touched.filter((p) => isHardExcluded(p));
    if (excluded.length > 0) warnings.push(`not rebuilt (excluded from checkpoints): ${excluded.join(', ')}`);
    if (missing.length > 0)
      warnings.push(`${missing.length} file edit(s) could not be rebuilt (see reconstructed.missing for why)`);

    // Each step's tree is built when the write reaches it, and each message let go once it is written: the
    // transcript's messages are never copied whole (issue 15).
    const convLeft: (ConversationMessage | undefined)[] = convMessages;
    async function* steps(): AsyncGenerator<ImportMessage> {
      const builder = await TreeBuilder.open(shadow, base);
      try {
        const last = new Map<string, FileState | 'base'>();
        let tree: string | null = null;
        for (let i = 0; i < convLeft.length; i++) {
          const m = convLeft[i]!;
          convLeft[i] = undefined;
          // What was written is garbage (messages let go, their log lines, blobs): collect it now and then, so
          // that the write never peaks above the read before it (memory.ts).
          if (i > 0 && i % COLLECT_EVERY_MESSAGES === 0) collectNow();
          const meta: MessageMeta = { ...m.meta };
          const out: ImportMessage = { role: m.role, text: m.text, ts: m.ts, meta, hidden: m.hidden };
          const cp = checkpointAt.get(i);
          checkpointAt.delete(i);
          if (cp) {
            const edits = new Map<string, TreeEdit>();
            for (const p of paths) {
              const want: FileState | 'base' = cp.states.has(p) ? cp.states.get(p)! : 'base';
              if (last.has(p) && last.get(p) === want) continue;
              last.set(p, want);
              edits.set(p, want === 'base' ? 'base' : want === null ? null : Buffer.from(want, 'utf8'));
            }
            // A step that changed nothing has the tree of the step before: no git call for it.
            if (edits.size > 0 || tree === null) tree = await builder.write(edits);
            out.checkpoint = { tree };
            const files = cp.rebuilt.filter((p) => !isHardExcluded(p));
            const notRebuilt = [...cp.missing, ...cp.rebuilt.filter((p) => isHardExcluded(p))];
            if (files.length > 0 || notRebuilt.length > 0) meta.reconstructed = { files, missing: notRebuilt };
            files.forEach((f) => allRebuilt.add(f));
          }
          yield out;
        }
        // The trees' objects durable before the log that names them is put in place.
        await builder.flush();
      } finally {
        builder.dispose();
      }
    }
    const written = await writeImportedSession(engine, {
      id: session,
      ...(title ? { title } : {}),
      source: 'claude-code',
      messages: steps(),
      importer: 'claude-code',
      origin: { kind: 'claude-code', transcript: opts.file, sessionId: session, cwd: transcriptCwd ?? cwd },
    });
    saveOrigin(ws, session, {
      kind: 'claude-code',
      transcript: opts.file,
      sessionId: session,
      cwd: transcriptCwd ?? cwd,
    });
    return details({
      ...written,
      workspace: ws.root,
      skipped: false,
      reconstructed: { files: [...allRebuilt].sort(), missing },
      warnings,
    });
  });
}

/** One entry per file and reason, in path order. */
function uniqueMissing(edits: EditAccount[]): { path: string; reason: string }[] {
  const seen = new Map<string, { path: string; reason: string }>();
  for (const e of edits)
    if (e.status === 'missing') seen.set(`${e.path}\0${e.reason}`, { path: e.path, reason: e.reason ?? '' });
  return [...seen.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function readTranscript(file: string): Promise<Conversation> {
  try {
    if (statSync(file).isDirectory())
      throw new RetraceError('E_IMPORT', `${file} is a folder, not a transcript (.jsonl)`);
    return await readConversation(file, findAgentFiles(file), { pack: true });
  } catch (e) {
    if (e instanceof RetraceError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new RetraceError('E_IMPORT', `no such transcript: ${file}`);
    if (code === 'EISDIR') throw new RetraceError('E_IMPORT', `${file} is a folder, not a transcript (.jsonl)`);
    throw new RetraceError('E_IMPORT', `cannot read ${file}: ${(e as Error).message}`);
  }
}

/**
 * A sub-agent's own file given to import: its lines are a side chain of a session, which is what to import (the
 * session's import brings its sub-agents along, findAgentFiles). Names that transcript where it is found.
 */
function subagentOnly(file: string, sessionId: string): string {
  const dir = dirname(file);
  // 2.1.x: <project>/<sessionId>/subagents/agent-*.jsonl; 2.0.x: agent-*.jsonl beside <sessionId>.jsonl.
  const parent = [join(dirname(dirname(dir)), `${sessionId}.jsonl`), join(dir, `${sessionId}.jsonl`)].find(existsSync);
  return `${file} is a sub-agent's transcript, a side thread of session ${sessionId}: import ${parent ?? `that session's transcript (${sessionId}.jsonl)`} instead; its sub-agents come with it`;
}

/**
 * Sub-agent transcripts of this session: `agent-*.jsonl` beside it whose lines name this session (2.0.x),
 * and `<sessionId>/subagents/agent-*.jsonl` (2.1.x).
 */
export function findAgentFiles(file: string): { name: string; path: string }[] {
  const dir = dirname(file);
  const sessionId = sessionIdOf(head(file)) ?? basename(file).replace(/\.jsonl$/, '');
  const out: { name: string; path: string }[] = [];
  const read = (folder: string, check: boolean) => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (!/^agent-[A-Za-z0-9_-]+\.jsonl$/.test(name)) continue;
      const path = join(folder, name);
      // A project folder can hold hundreds of other sessions' agent files: look at each one's head first.
      if (check && sessionIdOf(head(path)) !== sessionId) continue;
      out.push({ name, path });
    }
  };
  read(dir, true);
  read(join(dir, sessionId, 'subagents'), false);
  return out;
}

function sessionIdOf(text: string): string | undefined {
  return /"sessionId"\s*:\s*"([^"]+)"/.exec(text)?.[1];
}

/** The first 64 KiB of a file (enough for its first lines' sessionId), or '' when unreadable. */
function head(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

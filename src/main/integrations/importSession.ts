/**
 * Writing an imported session through the engine's one write protocol (engine/record.ts): commits first
 * (unreferenced until the end), the log written aside in batches as they come (sessions/stagedLog.ts), put in
 * place whole, then the session ref.
 * The caller holds the workspace lock (`engine.write`).
 *
 * Checkpoints come either as trees built by the importer (a new commit on the session's chain) or as
 * commits that already exist in the shadow repository (Cline's, fetched with their hashes unchanged).
 * Messages of abandoned branches start hidden (MessageEvent.hidden): they are in the log, shown with --all.
 */
import { relative, isAbsolute } from 'node:path';
import { RetraceError } from '../../shared/errors';
import type { MessageMeta, Role, SessionSource } from '../../shared/model';
import type { MessageEvent, SessionOrigin } from '../engine/sessions/events';
import { syncObjects } from '../engine/git/looseObject';
import { commitMessage, publish } from '../engine/record';
import { newMessageId, sessionRef } from '../engine/sessions/ids';
import { StagedLog } from '../engine/sessions/stagedLog';
import { sessionHeader, type CreateSessionOptions } from '../engine/sessions/store';
import { archiveDir, stageArchive } from '../engine/storage/archive';
import type { WorkspaceEngine } from '../engine/workspaceEngine';

export interface ImportMessage {
  role: Role;
  text: string;
  ts: string;
  meta?: MessageMeta;
  hidden?: boolean;
  checkpoint?: { tree: string } | { hash: string };
}

export interface ImportSessionInput {
  id: string;
  title?: string;
  source: SessionSource;
  createdAt?: string;
  /** In order; an async iterable lets an importer build each step's tree as the write reaches it. */
  messages: Iterable<ImportMessage> | AsyncIterable<ImportMessage>;
  /** Label for commit messages ("claude-code", "cline"). */
  importer: string;
  origin?: SessionOrigin;
  /** The transcript file to keep a compressed copy of (default: origin.transcript); engine/storage/archive.ts. */
  archiveSource?: string;
}

export interface ImportSessionResult {
  session: string;
  /** Visible messages (as `retrace sessions` counts them); `hidden` counts the others. */
  messages: number;
  checkpoints: number;
  hidden: number;
}

/** What every importer answers (the CLI prints it; each importer adds its own details). */
export interface ImportOutcome extends ImportSessionResult {
  /** Which agent's transcript it was (CLI.md); the import command fills it in where an importer does not. */
  agent?: string;
  workspace: string;
  /** True when the session had been imported before and was left as it was. */
  skipped: boolean;
  warnings: string[];
}

/** Counts of an existing session, for "already imported" answers. */
async function existingCounts(engine: WorkspaceEngine, id: string): Promise<ImportSessionResult> {
  const s = await engine.sessions.read(id);
  return {
    session: id,
    messages: s.messages.filter((m) => !m.hidden).length,
    checkpoints: s.messages.filter((m) => m.hash).length,
    hidden: s.messages.filter((m) => m.hidden).length,
  };
}

/**
 * The answer of an import whose session is in the workspace already (imported before, or recorded by hooks): its
 * counts, nothing changed, and how to import it again. Each importer adds its own empty details.
 */
export async function alreadyImported(
  engine: WorkspaceEngine,
  id: string,
): Promise<ImportOutcome & { reconstructed: { files: never[]; missing: never[] } }> {
  return {
    ...(await existingCounts(engine, id)),
    workspace: engine.ws.root,
    skipped: true,
    reconstructed: { files: [], missing: [] },
    warnings: [
      `session ${id} is in this workspace already (imported or recorded by hooks); left as it is (--replace imports it again over it)`,
    ],
  };
}

/** Remove a session's log and ref so it can be imported again (the caller holds the lock). */
export async function removeSession(engine: WorkspaceEngine, id: string): Promise<void> {
  await engine.deleteSessionLocked(id);
}

/** Messages between two writes of the log. */
const BATCH = 512;

export async function writeImportedSession(
  engine: WorkspaceEngine,
  input: ImportSessionInput,
): Promise<ImportSessionResult> {
  if (engine.sessions.exists(input.id))
    throw new RetraceError('E_INVALID_INPUT', `session ${input.id} exists already in this workspace`);
  const shadow = await engine.shadow();
  // The log is written aside as the messages come and put in place at the end (sessions/stagedLog.ts): no
  // message is held longer than its batch, and nothing is visible before all of it is.
  const log = new StagedLog(engine.sessions, input.id);
  // The source kept before the session appears: compressed aside while the steps are written, put in place only
  // when they all were (a failed import leaves no copy). Importing from the copy itself (`retrace import
  // archive`) leaves it as it is.
  const archiveSource = input.archiveSource ?? input.origin?.transcript;
  const archiving =
    archiveSource && !isInside(archiveDir(engine.ws), archiveSource)
      ? stageArchive(engine.ws, input.id, archiveSource)
      : null;
  archiving?.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled
  let placed = false;
  try {
    let batch: MessageEvent[] = [];
    /** The batch's checkpoints: each one's stats are counted against the checkpoint before it on the chain. */
    let counted: { ev: MessageEvent; from: string | null; to: string }[] = [];
    let headerWritten = false;
    const writeBatch = async () => {
      // Asked all at once: the shadow's resident diff-tree answers them one after another on one pipe.
      const stats = await Promise.all(counted.map((c) => shadow.diffStats(c.from, c.to)));
      counted.forEach((c, i) => (c.ev.stats = stats[i]!.stats));
      if (!headerWritten) {
        log.write([sessionHeader(input.id, headerOptions(input, batch[0]?.ts))]);
        headerWritten = true;
      }
      log.write(batch);
      batch = [];
      counted = [];
    };
    let prev: string | null = null;
    const written: string[] = [];
    let messages = 0;
    let checkpoints = 0;
    let hidden = 0;
    let lastTs = '';
    for await (const m of input.messages) {
      const id = newMessageId();
      // Logs are read in order; keep times from going backwards (clocks and merged branches can disagree).
      const ts = m.ts && m.ts >= lastTs ? m.ts : lastTs || new Date().toISOString();
      lastTs = ts;
      const ev: MessageEvent = { type: 'message', id, ts, role: m.role, text: m.text };
      if (m.meta && Object.keys(m.meta).length > 0) ev.meta = m.meta;
      if (m.hidden) ev.hidden = true;
      // A hidden message keeps an existing commit it names (Cline), but never starts a new one on the chain.
      if (m.checkpoint && (!m.hidden || 'hash' in m.checkpoint)) {
        let hash: string;
        if ('tree' in m.checkpoint) {
          hash = await shadow.commit(
            m.checkpoint.tree,
            prev,
            commitMessage(input.id, id, m.role, m.text, input.importer),
            { durable: false }, // synced all at once below, before the log names them
          );
          written.push(hash);
        } else {
          hash = m.checkpoint.hash;
          if (!(await shadow.commitExists(hash)))
            throw new RetraceError('E_IMPORT', `checkpoint ${hash.slice(0, 7)} is not in the shadow repository`);
        }
        ev.hash = hash;
        counted.push({ ev, from: prev, to: hash });
        if (!m.hidden) prev = hash;
        checkpoints++;
      }
      batch.push(ev);
      messages++;
      if (m.hidden) hidden++;
      if (batch.length >= BATCH) await writeBatch();
    }
    if (batch.length > 0 || !headerWritten) await writeBatch();
    await syncObjects(shadow.gitDir, written);
    if (archiving) await (await archiving).place();
    await publish(engine, input.id, log, { from: await shadow.readRef(sessionRef(input.id)), to: prev });
    placed = true;
    return { session: input.id, messages: messages - hidden, checkpoints, hidden };
  } finally {
    if (!placed) {
      log.discard();
      await archiving?.then((a) => a.discard()).catch(() => undefined);
    }
  }
}

function headerOptions(input: ImportSessionInput, firstTs: string | undefined): CreateSessionOptions {
  const opts: CreateSessionOptions = { source: input.source };
  if (input.title) opts.title = input.title;
  if (input.origin) opts.origin = input.origin;
  opts.createdAt = input.createdAt ?? firstTs ?? new Date().toISOString();
  return opts;
}

function isInside(dir: string, p: string): boolean {
  const rel = relative(dir, p);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

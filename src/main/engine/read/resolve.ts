/**
 * Naming checkpoints: a full hash, a unique prefix of 7+ hex digits, or the id of the message that carries it
 * (CLI.md), and which checkpoints a repair of the shadow repository had to give up.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { RestoreTarget } from '../../../shared/model';
import type { WorkspaceContext } from '../context';

type Ctx = Pick<WorkspaceContext, 'ws' | 'sessions' | 'shadow'>;

interface UnavailableFile {
  hashes?: unknown;
  salvaged?: Record<string, unknown>;
}

/** shadow/repair.ts writes this file; it is read here directly so that reading a log never loads git code. */
async function readUnavailable(ctx: Pick<WorkspaceContext, 'ws'>): Promise<UnavailableFile> {
  try {
    return JSON.parse(await readFile(join(ctx.ws.dir, 'unavailable.json'), 'utf8')) as UnavailableFile;
  } catch {
    return {};
  }
}

/** Checkpoints whose files a repair of the shadow repository could not save. */
export async function unavailable(ctx: Pick<WorkspaceContext, 'ws'>): Promise<Set<string>> {
  const j = await readUnavailable(ctx);
  return new Set(Array.isArray(j.hashes) ? j.hashes.filter((h): h is string => typeof h === 'string') : []);
}

/** Checkpoints a repair gave up or salvaged under another commit: the repair placed their session's ref. */
export async function givenUp(ctx: Pick<WorkspaceContext, 'ws'>): Promise<Set<string>> {
  const j = await readUnavailable(ctx);
  return new Set([...(await unavailable(ctx)), ...Object.keys(j.salvaged ?? {})]);
}

/**
 * The commit that holds a checkpoint's files: itself, or — when a repair found its history broken — the
 * salvaged commit with the same tree (which survives gc; the old commit does not).
 */
async function salvagedAs(ctx: Ctx, hash: string): Promise<string> {
  const to = (await readUnavailable(ctx)).salvaged?.[hash];
  return typeof to === 'string' && /^[0-9a-f]{40}$/.test(to) ? to : hash;
}

/** E_UNKNOWN_CHECKPOINT for a checkpoint that a repair had to give up. */
export async function assertAvailable(ctx: Pick<WorkspaceContext, 'ws'>, hash: string | null): Promise<void> {
  if (hash && (await unavailable(ctx)).has(hash)) {
    throw new RetraceError(
      'E_UNKNOWN_CHECKPOINT',
      `checkpoint ${hash.slice(0, 7)} is unavailable: the shadow repository lost its files (see retrace status)`,
    );
  }
}

/** The checkpoint a name designates; its session is the session whose message carries the hash. */
export async function resolveCheckpoint(ctx: Ctx, spec: string): Promise<RestoreTarget> {
  const states = await ctx.sessions.readAll();
  if (/^[0-9a-fA-F]+$/.test(spec)) {
    const prefix = spec.toLowerCase();
    if (prefix.length < 7)
      throw new RetraceError('E_UNKNOWN_CHECKPOINT', `checkpoint ${spec}: give at least 7 hex digits`);
    if (prefix.length > 40) throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no checkpoint ${spec}`);
    const carriers = new Map<string, RestoreTarget>();
    for (const s of states) {
      for (const m of s.messages) {
        // The newest carrier wins (an imported copy of a checkpoint, a re-recorded one).
        if (m.hash && m.hash.startsWith(prefix))
          carriers.set(m.hash, { hash: m.hash, message: m.id, session: s.header.id });
      }
    }
    if (carriers.size > 1)
      throw new RetraceError(
        'E_AMBIGUOUS',
        `checkpoint prefix ${spec} names ${carriers.size} checkpoints; give more digits`,
      );
    const only = [...carriers.values()][0];
    if (!only) throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no checkpoint ${spec} in this workspace`);
    await assertAvailable(ctx, only.hash);
    return { ...only, hash: await salvagedAs(ctx, only.hash) };
  }
  for (const s of states) {
    const m = s.messages.find((x) => x.id === spec);
    if (!m) continue;
    if (!m.hash) throw new RetraceError('E_UNKNOWN_CHECKPOINT', `message ${spec} carries no checkpoint`);
    await assertAvailable(ctx, m.hash);
    return { hash: await salvagedAs(ctx, m.hash), message: m.id, session: s.header.id };
  }
  throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no checkpoint or message ${spec} in this workspace`);
}

/** Like resolveCheckpoint, but any commit of the shadow repository will do (a safety checkpoint, say). */
export async function resolveCommit(ctx: Ctx, spec: string): Promise<string> {
  // A full hash needs no search through the logs (the UI names every side this way, on every scrub).
  if (/^[0-9a-f]{40}$/.test(spec)) {
    await assertAvailable(ctx, spec);
    const hash = await salvagedAs(ctx, spec);
    if (!(await (await ctx.shadow()).commitExists(hash)))
      throw new RetraceError('E_UNKNOWN_CHECKPOINT', `no checkpoint ${spec} in this workspace`);
    return hash;
  }
  try {
    return (await resolveCheckpoint(ctx, spec)).hash;
  } catch (e) {
    if (!(e instanceof RetraceError) || e.code !== 'E_UNKNOWN_CHECKPOINT' || !/^[0-9a-fA-F]{7,40}$/.test(spec)) throw e;
    return (await ctx.shadow()).resolveCommit(spec.toLowerCase());
  }
}

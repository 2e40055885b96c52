/**
 * Compressed copies of imported transcripts (issue 14 item 5): the agents delete their own after a while
 * (Claude Code after 30 days), so the import keeps the source it read, gzipped, in the workspace's data folder:
 * <ws.dir>/archive/<session>.gz and <session>.json (where it came from). A re-import of a changed transcript
 * replaces both; `retrace import archive SESSION` imports again from the copy when the source is gone.
 * Everything is private (0600, privateFs) and written temp-then-rename, so a copy is whole or absent.
 */
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { pipeline } from 'node:stream/promises';
import { createGzip, gunzip } from 'node:zlib';
import { RetraceError } from '../../../shared/errors';
import { mkdirPrivate, PRIVATE_FILE_MODE, writeFilePrivate } from '../privateFs';
import { assertSessionId } from '../sessions/ids';
import type { WorkspaceRef } from '../workspace';
import { dirBytes } from './dirBytes';

const gunzipAsync = promisify(gunzip);

export interface ArchiveInfo {
  /** The transcript's path when it was imported. */
  source: string;
  /** Its size uncompressed. */
  bytes: number;
  archivedAt: string;
}

export function archiveDir(ws: WorkspaceRef): string {
  return path.join(ws.dir, 'archive');
}

function files(ws: WorkspaceRef, session: string): { data: string; info: string } {
  const base = path.join(archiveDir(ws), assertSessionId(session));
  return { data: `${base}.gz`, info: `${base}.json` };
}

/** Keep a compressed copy of `source` for `session`, replacing an older one. */
export async function archiveTranscript(ws: WorkspaceRef, session: string, source: string): Promise<ArchiveInfo> {
  return (await stageArchive(ws, session, source)).place();
}

/** A copy compressed aside: `place` makes it the session's (replacing an older one), `discard` drops it. */
export interface StagedArchive {
  place(): Promise<ArchiveInfo>;
  discard(): Promise<void>;
}

/**
 * Compress `source` to a file beside the archive, streaming (a 100 MB transcript is never held whole; issue 15),
 * so that an import can run it while it writes its steps and keep it only if the import succeeds. Level 6: about
 * 1% larger than 9 on transcripts, in about half the time.
 */
export async function stageArchive(ws: WorkspaceRef, session: string, source: string): Promise<StagedArchive> {
  const f = files(ws, session);
  await mkdirPrivate(archiveDir(ws));
  const tmp = `${f.data}.${process.pid}.tmp`;
  let bytes = 0;
  try {
    await pipeline(
      createReadStream(source),
      async function* count(chunks: AsyncIterable<Buffer>) {
        for await (const c of chunks) {
          bytes += c.length;
          yield c;
        }
      },
      createGzip({ level: 6 }),
      createWriteStream(tmp, { mode: PRIVATE_FILE_MODE }),
    );
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  return {
    async place() {
      const info: ArchiveInfo = { source: path.resolve(source), bytes, archivedAt: new Date().toISOString() };
      // Data first, then its description: an info file always describes a whole copy.
      await fs.rename(tmp, f.data);
      await replacePrivate(f.info, JSON.stringify(info) + '\n');
      return info;
    },
    discard: () => fs.rm(tmp, { force: true }),
  };
}

export async function readArchiveInfo(ws: WorkspaceRef, session: string): Promise<ArchiveInfo | null> {
  try {
    const j = JSON.parse(await fs.readFile(files(ws, session).info, 'utf8')) as Partial<ArchiveInfo>;
    if (typeof j.source !== 'string' || typeof j.bytes !== 'number' || typeof j.archivedAt !== 'string') return null;
    return { source: j.source, bytes: j.bytes, archivedAt: j.archivedAt };
  } catch {
    return null;
  }
}

/** The transcript as it was imported; E_IMPORT when this session has no copy. */
export async function readArchivedTranscript(ws: WorkspaceRef, session: string): Promise<Buffer> {
  const f = files(ws, session);
  let gz: Buffer;
  try {
    gz = await fs.readFile(f.data);
  } catch {
    throw new RetraceError('E_IMPORT', `session ${session} has no archived transcript in this workspace`);
  }
  try {
    return await gunzipAsync(gz);
  } catch (e) {
    throw new RetraceError('E_CORRUPT', `the archived transcript of ${session} is damaged: ${(e as Error).message}`);
  }
}

/** Compressed bytes kept for `session` (0 when none). */
export async function archivedBytes(ws: WorkspaceRef, session: string): Promise<number> {
  const f = files(ws, session);
  let total = 0;
  for (const p of [f.data, f.info]) total += (await fs.stat(p).catch(() => null))?.size ?? 0;
  return total;
}

/** Bytes of every copy kept in this workspace. */
export function allArchivedBytes(ws: WorkspaceRef): Promise<number> {
  return dirBytes(archiveDir(ws));
}

export async function removeArchive(ws: WorkspaceRef, session: string): Promise<void> {
  const f = files(ws, session);
  await fs.rm(f.info, { force: true });
  await fs.rm(f.data, { force: true });
}

async function replacePrivate(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFilePrivate(tmp, data);
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/**
 * The archived transcript written back out, under its own file name (and its folder's: a Cline task is named by
 * it), in a private scratch folder of the archive, for an importer to read. `cleanup` removes it.
 */
export async function unpackArchive(
  ws: WorkspaceRef,
  session: string,
): Promise<{ file: string; cleanup: () => Promise<void> }> {
  const info = await readArchiveInfo(ws, session);
  const bytes = await readArchivedTranscript(ws, session);
  if (!info) throw new RetraceError('E_IMPORT', `session ${session} has no archived transcript in this workspace`);
  const scratch = path.join(archiveDir(ws), `.unpacked-${process.pid}-${Date.now().toString(36)}`);
  const folder = path.join(scratch, path.basename(path.dirname(info.source)));
  await mkdirPrivate(folder);
  const file = path.join(folder, path.basename(info.source));
  await writeFilePrivate(file, bytes);
  return { file, cleanup: () => fs.rm(scratch, { recursive: true, force: true }) };
}

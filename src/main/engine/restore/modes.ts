/**
 * I11: a restore and its undo keep every permission bit and every folder. Git trees know only 644/755 files and
 * no folders, so the exact modes of the paths a restore touches — and of their parent folders, empty ones
 * included — are kept beside its safety checkpoint (<ws.dir>/restores/<rid>.modes.json, written before the
 * journal). Undo and rollback put them back: folders that existed are made again, bits are set again.
 */
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { mkdirPrivateSync, PRIVATE_FILE_MODE } from '../privateFs';
import { writeNewFile } from '../shadow/atomicWrite';
import type { PlacedFile } from '../shadow/apply';
import { lstatIdentity, type StatIdentity } from '../shadow/fileIdentity';

export interface ModeRecord {
  /** Folder path → permission bits: every parent folder of a planned path, and every folder below a planned folder. */
  dirs: Record<string, number>;
  /** File path → permission bits, for planned paths that were files. */
  files: Record<string, number>;
}

const parentsOf = (p: string): string[] => {
  const segs = p.split('/');
  return segs.slice(0, -1).map((_, i) => segs.slice(0, i + 1).join('/'));
};

/**
 * `seen`: what the same look found at some of the paths a moment ago (the restore's identities, prepare.ts): not
 * looked at again.
 */
export async function captureModes(
  root: string,
  paths: readonly string[],
  seen: ReadonlyMap<string, { stat?: StatIdentity | null }> = new Map(),
): Promise<ModeRecord> {
  const rec: ModeRecord = { dirs: {}, files: {} };
  const done = new Set<string>();
  for (const rel of paths) {
    for (const p of [...parentsOf(rel), rel]) {
      if (done.has(p)) continue;
      done.add(p);
      const known = seen.get(p)?.stat;
      const st = known !== undefined ? known : await lstatIdentity(path.join(root, p));
      if (st?.type === 'dir') rec.dirs[p] = st.mode & 0o7777;
      if (st?.type === 'dir' && p === rel)
        await captureFolders(root, rel, rec); // a folder the restore replaces
      else if (st?.type === 'file' && p === rel) rec.files[p] = st.mode & 0o7777;
      if (!st || st.type !== 'dir') break; // nothing of ours below a missing folder or a file
    }
  }
  return rec;
}

/** Every folder below `rel` (empty ones are what git cannot bring back); files are planned paths of their own. */
async function captureFolders(root: string, rel: string, rec: ModeRecord): Promise<void> {
  const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isDirectory() || e.name.toLowerCase() === '.git') continue;
    const child = `${rel}/${e.name}`;
    const st = await lstatIdentity(path.join(root, child));
    if (st?.type !== 'dir') continue;
    rec.dirs[child] = st.mode & 0o7777;
    await captureFolders(root, child, rec);
  }
}

const fileOf = (wsDir: string, rid: string): string => path.join(wsDir, 'restores', `${rid}.modes.json`);

/**
 * Written without a sync, before the journal names the restore: the journal's own round makes it durable with the
 * safety checkpoint (transaction.ts, journal.ts writeWith), one wait for the disk instead of one each. A file
 * torn by a crash before that round is named by no journal and no ledger line, so nothing ever reads it. Returns
 * what that round must sync.
 */
export async function writeModes(
  wsDir: string,
  rid: string,
  rec: ModeRecord,
): Promise<{ files: string[]; dirs: string[] }> {
  const file = fileOf(wsDir, rid);
  // In plain system calls, as the file itself is written: two thread-pool round trips cost more than the calls.
  mkdirPrivateSync(path.dirname(file));
  await writeNewFile(file, Buffer.from(JSON.stringify(rec)), PRIVATE_FILE_MODE, true, { sync: false });
  return { files: [file], dirs: [path.dirname(file)] };
}

export async function loadModes(wsDir: string, rid: string): Promise<ModeRecord | null> {
  try {
    return JSON.parse(readFileSync(fileOf(wsDir, rid), 'utf8')) as ModeRecord; // small: one call, no round trips
  } catch {
    return null; // restores made before modes were kept: git's 644/755 is all there is
  }
}

/**
 * After the files of `rec`'s restore are back: folders that existed then exist again (shallowest first), with
 * their bits; files this run wrote get their exact bits. Paths that are something else now are left alone.
 */
export async function reapplyModes(
  root: string,
  rec: ModeRecord,
  written: readonly string[],
  placed?: ReadonlyMap<string, PlacedFile>,
): Promise<void> {
  const dirs = Object.keys(rec.dirs).sort((a, b) => a.split('/').length - b.split('/').length);
  for (const rel of dirs) {
    const abs = path.join(root, rel);
    const st = await lstatIdentity(abs);
    if (!st) await fs.mkdir(abs).catch(() => {});
    const now = st ?? (await lstatIdentity(abs));
    if (now?.type === 'dir' && (now.mode & 0o7777) !== rec.dirs[rel]) await fs.chmod(abs, rec.dirs[rel]!);
  }
  for (const rel of written) {
    const mode = rec.files[rel];
    if (mode === undefined) continue;
    // Put in place with these very bits (an attic file goes back with its own, a written one with what it
    // replaced): nothing to look at again.
    const put = placed?.get(rel)?.placed;
    if (put && Number(put.mode & 0o7777n) === mode) continue;
    const abs = path.join(root, rel);
    const st = await lstatIdentity(abs);
    if (st?.type === 'file' && (st.mode & 0o7777) !== mode) await fs.chmod(abs, mode);
  }
}

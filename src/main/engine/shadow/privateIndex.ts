/**
 * A reader's own index (issue 10, I10): a diff to the files as they are now needs a snapshot, and a snapshot
 * stages into an index. The shared one (<gitDir>/index) belongs to the writer, so a reader copies it into a
 * file of its own and points git at the copy (GIT_INDEX_FILE): same stat cache, so only changed files are
 * hashed, and nothing the writer relies on is touched. The copy is taken whole (git replaces the index by
 * rename, so a copy never sees half of one) and removed afterwards; copies left by a killed reader are
 * removed by the next reader once they are an hour old.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { mkdirPrivate } from '../privateFs';

/** <ws.dir>/readers/: private indexes of running readers. */
const DIR = 'readers';
const LEFTOVER_MS = 60 * 60 * 1000;

export async function withPrivateIndex<T>(
  wsDir: string,
  gitDir: string,
  fn: (indexFile: string) => Promise<T>,
): Promise<T> {
  const dir = path.join(wsDir, DIR);
  await mkdirPrivate(dir);
  await removeLeftovers(dir);
  const file = path.join(dir, `index-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await copyIndex(path.join(gitDir, 'index'), file);
    return await fn(file);
  } finally {
    await fs.rm(file, { force: true });
    await fs.rm(`${file}.lock`, { force: true });
  }
}

/**
 * The copy keeps the index's own mtime: git treats an entry whose file is not older than the index as "racily
 * clean" and compares its content. A copy with a fresh mtime would make a same-size edit made in the index's
 * second look unchanged. (utimes may round the time down, which only makes more entries racy: the safe side.)
 */
async function copyIndex(from: string, to: string): Promise<void> {
  const st = await fs.stat(from).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null; // no index yet: the private one starts empty too
    throw e;
  });
  if (!st) return;
  await fs.copyFile(from, to);
  await fs.utimes(to, st.atime, st.mtime);
}

async function removeLeftovers(dir: string): Promise<void> {
  const now = Date.now();
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const p = path.join(dir, name);
    const st = await fs.stat(p).catch(() => null);
    if (st && now - st.mtimeMs > LEFTOVER_MS) await fs.rm(p, { force: true });
  }
}

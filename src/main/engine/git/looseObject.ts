import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, promises as fs, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { mkdirPrivate, mkdirPrivateSync, PRIVATE_READONLY_MODE } from '../privateFs';
import { syncDir, syncFileSystemsOf, syncRound } from '../syncFs';

/**
 * Objects written straight into the object store, the way git stores a loose object: the zlib-deflated
 * `<type> <size>\0<body>`, named by the SHA-1 of that text, at objects/<2 hex>/<38 hex>. For the warm
 * snapshot (treeEdit.ts), which writes a few blobs and the trees along their paths: no git process needed.
 * Maintenance packs them like any other loose object. Each is on disk (file and folder entry synced) when
 * this returns, as git does for its own with core.fsync=objects: the log line that names it comes later.
 */
/** git's id of an object (SHA-1 object format): also what a blob of these bytes is called. */
export function objectId(type: string, body: Buffer): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}

/**
 * A temporary object file's name, unique among this process's and unlikely to meet another's: git's `tmp_obj_`
 * and 12 hex — 6 drawn once per process, 6 counted (a random draw per object cost more than writing it). A clash
 * with another process's file fails its exclusive create, never overwrites it.
 */
let tmpPrefix = '';
let tmpCount = 0;
function tmpObjectName(redraw = false): string {
  if (redraw || !tmpPrefix || tmpCount >= 0xffffff) {
    tmpPrefix = randomBytes(3).toString('hex');
    tmpCount = 0;
  }
  return `tmp_obj_${tmpPrefix}${(tmpCount++).toString(16).padStart(6, '0')}`;
}

/**
 * `durable: false` leaves the syncing to the caller, who writes many objects before any log line names them
 * (an import) and syncs them all at once with `syncObjects`.
 */
export async function writeLooseObject(
  gitDir: string,
  type: string,
  body: Buffer,
  opts: { durable?: boolean } = {},
): Promise<string> {
  const durable = opts.durable !== false;
  const id = objectId(type, body);
  const dir = path.join(gitDir, 'objects', id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  if (
    await fs.stat(file).then(
      () => true,
      () => false,
    )
  )
    return id;
  await mkdirPrivate(dir);
  // Level 1, git's default for loose objects (core.looseCompression): they are packed later anyway.
  const bytes = deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]), { level: 1 });
  let tmp = path.join(dir, tmpObjectName());
  const fh = await fs.open(tmp, 'wx', PRIVATE_READONLY_MODE).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
    tmp = path.join(dir, tmpObjectName(true)); // another process drew the same prefix: draw again
    return fs.open(tmp, 'wx', PRIVATE_READONLY_MODE);
  });
  try {
    await fh.writeFile(bytes);
    if (durable) await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, file); // atomic: a reader sees the whole object or none
  if (durable) await syncDir(dir);
  return id;
}

/**
 * writeLooseObject with `durable: false`, in plain system calls: an import writes thousands of objects, and on a
 * loaded machine each of the async version's six steps waits its turn for a thread-pool worker (issue 15: most of
 * a 100 MB import's time). Each call is a few short system calls; the caller syncs with `syncObjects`.
 */
export function writeLooseObjectSync(gitDir: string, type: string, body: Buffer): string {
  const id = objectId(type, body);
  const dir = path.join(gitDir, 'objects', id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  if (existsSync(file)) return id;
  const bytes = deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]), { level: 1 });
  let tmp = path.join(dir, tmpObjectName());
  let fd: number;
  try {
    fd = openSync(tmp, 'wx', PRIVATE_READONLY_MODE);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      mkdirPrivateSync(dir); // the first object of its folder: most folders exist already
    else if (code === 'EEXIST')
      tmp = path.join(dir, tmpObjectName(true)); // another process drew the same prefix
    else throw e;
    fd = openSync(tmp, 'wx', PRIVATE_READONLY_MODE);
  }
  try {
    for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file); // atomic: a reader sees the whole object or none
  return id;
}

/**
 * Make every object written with `durable: false` durable, before the log line that names them: one syncfs(2) of
 * the repository's file system instead of two fsyncs per object; where that is not available, syncLooseObjects.
 */
export async function syncObjects(gitDir: string, ids: Iterable<string>): Promise<void> {
  if (!(await syncFileSystemsOf([path.join(gitDir, 'objects')]))) await syncLooseObjects(gitDir, ids);
}

/** Where loose objects live: each one's file and its folder (what makes it durable: syncRound in syncFs.ts). */
export function looseObjectPaths(gitDir: string, ids: Iterable<string>): { files: string[]; dirs: string[] } {
  const unique = [...new Set(ids)];
  const files = unique.map((id) => path.join(gitDir, 'objects', id.slice(0, 2), id.slice(2)));
  return { files, dirs: [...new Set(files.map((f) => path.dirname(f)))] };
}

/**
 * Make a few objects written with `durable: false` durable, all at once: every file's fsync and every folder's
 * in parallel (the file system commits them together), instead of two fsyncs in turn per object. Objects that are already packed or were gone are skipped (a pack is synced by git when written).
 */
export async function syncLooseObjects(gitDir: string, ids: Iterable<string>): Promise<void> {
  const { files, dirs } = looseObjectPaths(gitDir, ids);
  await syncRound(files, dirs);
}

/**
 * Exact fingerprints of folders, to prove "nothing changed" or "exactly the state before/after".
 *
 * treeManifest: every entry under a folder except `.git` (directory or file, at any depth), keyed by its
 * relative path, with type, content hash, executable bit, symlink target bytes and optionally mtime.
 * gitManifest: every byte, mode and mtime of every `.git` in the folder (root and nested, dir or file), and
 * the set of names — so a stray `index.lock` or a rewritten index shows up.
 *
 * Names are read as raw bytes, so files with invalid UTF-8 or newlines in their names are covered too.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, readlinkSync, type Stats } from 'node:fs';

export interface TreeOptions {
  /** Include the mtime of files and symlinks (I4: unchanged files keep their mtime). Default false. */
  mtimes?: boolean;
  /** Include directories (so an empty folder counts). Default false: git does not keep empty folders. */
  dirs?: boolean;
  /** Leave out entries for which this returns true (relative '/'-path; `.git` is always left out). */
  exclude?: (relPath: string) => boolean;
}

export type Manifest = Map<string, string>;

/** Relative path → "type mode size sha [mtime]" for everything but `.git`. */
export function treeManifest(root: string, opts: TreeOptions = {}): Manifest {
  const out: Manifest = new Map();
  walk(Buffer.from(root), '', (rel, full, st) => {
    if (isGitName(rel)) return 'skip';
    if (opts.exclude?.(rel)) return 'skip';
    if (st.isDirectory()) {
      if (opts.dirs) out.set(rel, 'd');
      return 'descend';
    }
    out.set(rel, describe(full, st, opts.mtimes === true));
    return 'skip';
  });
  return out;
}

/** Every file, directory and byte under every `.git` of the tree (mtimes included: a rewrite is a write). */
export function gitManifest(root: string): Manifest {
  const out: Manifest = new Map();
  const addAll = (rel: string, full: Buffer, st: Stats): void => {
    if (st.isDirectory()) {
      out.set(rel, `d ${st.mode.toString(8)} ${st.mtimeMs}`);
      for (const name of readdirSync(full, { encoding: 'buffer' })) {
        const child = Buffer.concat([full, SLASH, name]);
        addAll(`${rel}/${nameKey(name)}`, child, lstatSync(child));
      }
    } else {
      out.set(rel, describe(full, st, true));
    }
  };
  walk(Buffer.from(root), '', (rel, full, st) => {
    if (isGitName(rel)) {
      addAll(rel, full, st);
      return 'skip';
    }
    return st.isDirectory() ? 'descend' : 'skip';
  });
  return out;
}

/** One hex digest of a manifest, for quick equality. */
export function digest(m: Manifest): string {
  const h = createHash('sha256');
  for (const key of [...m.keys()].sort()) h.update(`${key}\0${m.get(key)}\n`);
  return h.digest('hex');
}

export const treeChecksum = (root: string, opts?: TreeOptions): string => digest(treeManifest(root, opts));
export const gitChecksum = (root: string): string => digest(gitManifest(root));

/** Human-readable differences between two manifests (empty when equal), for assertion messages. */
export function manifestDiff(before: Manifest, after: Manifest, limit = 20): string[] {
  const lines: string[] = [];
  for (const [k, v] of before) {
    if (!after.has(k)) lines.push(`- ${k} (${v})`);
    else if (after.get(k) !== v) lines.push(`~ ${k} (${v} → ${after.get(k)})`);
  }
  for (const [k, v] of after) if (!before.has(k)) lines.push(`+ ${k} (${v})`);
  return lines.slice(0, limit);
}

export function manifestsEqual(a: Manifest, b: Manifest): boolean {
  return digest(a) === digest(b);
}

/** sha256 of a file's bytes. */
export function fileSha(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

// ---------------------------------------------------------------------------------------------------------

const SLASH = Buffer.from('/');

type Visit = (rel: string, full: Buffer, st: Stats) => 'descend' | 'skip';

function walk(dir: Buffer, relDir: string, visit: Visit): void {
  let names: Buffer[];
  try {
    names = readdirSync(dir, { encoding: 'buffer' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  for (const name of names) {
    const full = Buffer.concat([dir, SLASH, name]);
    const rel = relDir === '' ? nameKey(name) : `${relDir}/${nameKey(name)}`;
    let st: Stats;
    try {
      st = lstatSync(full);
      if (visit(rel, full, st) === 'descend' && st.isDirectory()) walk(full, rel, visit);
    } catch (e) {
      // Deleted between readdir and lstat/read (tests that churn files on purpose): it is simply not there.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

function describe(full: Buffer, st: Stats, withMtime: boolean): string {
  const t = withMtime ? ` @${st.mtimeMs}` : '';
  if (st.isSymbolicLink()) return `l ${readlinkSync(full, { encoding: 'buffer' }).toString('hex')}${t}`;
  if (st.isFile()) {
    const exec = (st.mode & 0o111) !== 0 ? 'x' : '-';
    const sha = createHash('sha256').update(readFileSync(full)).digest('hex');
    return `f ${exec} ${st.size} ${sha}${t}`;
  }
  if (st.isDirectory()) return 'd';
  return `other ${st.mode.toString(8)}`;
}

/** A file name as a key: UTF-8 when it round-trips, else its bytes in hex (invalid UTF-8 names). */
function nameKey(name: Buffer): string {
  const s = name.toString('utf8');
  return Buffer.from(s, 'utf8').equals(name) ? s : `<hex:${name.toString('hex')}>`;
}

function isGitName(rel: string): boolean {
  return rel === '.git' || rel.endsWith('/.git');
}

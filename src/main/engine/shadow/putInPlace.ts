/**
 * Moving a side file back over a path (an undo's put-back, a rollback, a killed run's leftovers) without losing
 * what someone writes to that path meanwhile (I9).
 *
 * "Check the path, then rename over it" loses every write that lands between the check and the rename: an
 * agent appending to a log hundreds of times a second hits that window on a busy machine (a CI run lost three
 * lines this way). So the file at the path is first hard-linked aside, checked through that link, and checked
 * again after the rename: a write that reached it at any moment before the rename is in the aside file, which
 * is then kept under a visible name instead of dropped. A path that must be empty is filled with link(2), which
 * never replaces anything. What remains is the window every apply has: a write through a descriptor opened
 * before the rename and made after the last check.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { testHook } from '../faults';
import { sidePath } from './atomicWrite';
import { diskBlob, lstatIdentity, sameStat } from './fileIdentity';

/** File systems without hard links (FAT, some shares) refuse link(2) with one of these. */
export const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK', 'EACCES']);

const errCode = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? '';

/** The visible name under which a version is kept beside `abs`; `n` tells apart several of one run. */
export function keptName(abs: string, tag: string, n = 0): string {
  return `${abs}.retrace-kept-${tag}${n > 0 ? `-${n}` : ''}`;
}

export interface PutResult {
  /** `from` is at the path now. */
  placed: boolean;
  /** Absolute paths of versions kept under a visible name (`from` itself when not placed). */
  kept: string[];
}

/**
 * Put the file `from` at `abs` if `abs` holds `expected` (a blob id) or nothing; otherwise leave `abs` alone and
 * keep `from` under a visible name. Either way nothing that was at `abs` is lost.
 */
export async function putInPlace(abs: string, from: string, expected: string | null, tag: string): Promise<PutResult> {
  const keep = async (file: string, n = 0): Promise<string> => {
    const name = keptName(abs, tag, n);
    await fs.rename(file, name);
    return name;
  };
  const aside = sidePath(abs, tag, 'aside');
  await fs.rm(aside, { force: true });
  try {
    await fs.link(abs, aside);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return fillEmpty(abs, from, keep);
    if (errCode(e) === 'EPERM' && (await lstatIdentity(abs))?.type === 'dir')
      return { placed: false, kept: [await keep(from)] };
    if (!NO_HARD_LINKS.has(errCode(e))) throw e;
    return checkThenRename(abs, from, expected, keep);
  }
  const held = await lstatIdentity(aside);
  if (expected === null || !held || (await diskBlob(aside, held)) !== expected) {
    await fs.rm(aside, { force: true });
    return { placed: false, kept: [await keep(from)] };
  }
  await testHook('apply:before-put-back', abs);
  await fs.rename(from, abs);
  // The file we just replaced, looked at once more: a write between the check and the rename is in it.
  const after = await lstatIdentity(aside);
  if (after && held && sameStat(after, held, { ignoreCtime: true }) && (await diskBlob(aside, after)) === expected) {
    await fs.rm(aside, { force: true });
    return { placed: true, kept: [] };
  }
  return { placed: true, kept: [await keep(aside, 1)] };
}

/** `abs` is absent: link(2) fills it only while it stays so (a file created meanwhile is never replaced). */
async function fillEmpty(abs: string, from: string, keep: (file: string) => Promise<string>): Promise<PutResult> {
  try {
    await fs.link(from, abs);
  } catch (e) {
    if (errCode(e) === 'EEXIST') return { placed: false, kept: [await keep(from)] };
    if (errCode(e) === 'ENOENT') throw e; // the folder is gone: the caller decides
    if (!NO_HARD_LINKS.has(errCode(e))) throw e;
    if (await lstatIdentity(abs)) return { placed: false, kept: [await keep(from)] };
    await fs.rename(from, abs);
    return { placed: true, kept: [] };
  }
  await fs.rm(from, { force: true });
  return { placed: true, kept: [] };
}

/** Without hard links the old way is all there is: check, then rename (a write in between is lost). */
async function checkThenRename(
  abs: string,
  from: string,
  expected: string | null,
  keep: (file: string) => Promise<string>,
): Promise<PutResult> {
  const now = await lstatIdentity(abs);
  const ours = now === null || (expected !== null && (await diskBlob(abs, now)) === expected);
  if (!ours) return { placed: false, kept: [await keep(from)] };
  await fs.rename(from, abs);
  return { placed: true, kept: [] };
}

/**
 * Take away the file at `abs` if it still holds `expected` (what we created there); a file that changed is left
 * (or, when something new took its place meanwhile, kept beside it). Moving it aside first means a write that
 * lands between the check and the removal is seen, not unlinked with it.
 */
export async function removeIfStill(abs: string, expected: string, tag: string): Promise<PutResult> {
  const aside = sidePath(abs, tag, 'aside');
  await fs.rm(aside, { force: true });
  try {
    await fs.rename(abs, aside);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return { placed: false, kept: [] };
    throw e;
  }
  const held = await lstatIdentity(aside);
  await testHook('apply:before-drop-created', abs);
  if (held?.type === 'file' || held?.type === 'link') {
    if ((await diskBlob(aside, held)) === expected) {
      await fs.rm(aside, { force: true });
      return { placed: true, kept: [] };
    }
  }
  // Not ours any more: back where it was, unless a new file took the path meanwhile.
  const back = await fillEmpty(abs, aside, async (file) => {
    const name = keptName(abs, tag, 2);
    await fs.rename(file, name);
    return name;
  });
  return { placed: false, kept: back.kept };
}

/**
 * What a killed put-back left beside `abs`: a file it held aside. Dropped when it is the file at `abs` itself or
 * holds `expected` (what the killed run had written there); otherwise it is someone's version: back at `abs` if
 * that is empty, else kept under a visible name.
 */
export async function settleAside(abs: string, tag: string, expected: string | null): Promise<string[]> {
  const aside = sidePath(abs, tag, 'aside');
  const held = await lstatIdentity(aside);
  if (!held) return [];
  const now = await lstatIdentity(abs);
  const same = now !== null && now.ino === held.ino && now.type === held.type;
  if (same || (expected !== null && (await diskBlob(aside, held)) === expected)) {
    await fs.rm(aside, { force: true });
    return [];
  }
  const back = await fillEmpty(abs, aside, async (file) => {
    const name = keptName(abs, tag, 3);
    await fs.rename(file, name);
    return name;
  });
  return back.kept;
}

/** Relative, slash-separated names for the kept list. */
export const relKept = (root: string, kept: string[]): string[] =>
  kept.map((k) => path.relative(root, k).split(path.sep).join('/'));

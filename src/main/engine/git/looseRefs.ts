import {
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { mkdirPrivateSync, PRIVATE_FILE_MODE } from '../privateFs';
import type { ObjectType } from './objects';

/** Reads an object's type (ResidentReader): null when the object is missing. */
export interface TypeSource {
  type(id: string): Promise<ObjectType | null>;
}

/** "Ask git": the in-process path does not answer this one (refs.ts does, exactly as before). */
export const ASK_GIT = Symbol('ask git');
type OrAskGit<T> = T | typeof ASK_GIT;

const OID = /^[0-9a-f]{40}$/;
/** Refs handled here: Retrace's own, with components git accepts whatever its version (check_refname_format). */
const SIMPLE_REF = /^refs\/retrace(\/[A-Za-z0-9_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*)+$/;

/**
 * Retrace's refs (refs/retrace/…) read and moved without a git process, with git's files-backend protocol, so
 * that git and Retrace can interleave: a ref is its loose file `<gitDir>/<ref>` holding `<id>\n`, else its line
 * in packed-refs. An update creates `<ref>.lock` exclusively (the lock git itself takes), checks the expected
 * old value under it, writes and syncs the lock (core.fsync=reference) and renames it over the ref. Anything
 * unusual — a symbolic ref, a reflog, a folder in the way, a lock already there, a mismatch, an object that is
 * not a commit — is left to git (ASK_GIT), which then answers or fails exactly as it always did.
 */
export class LooseRefs {
  private readonly filesBackend: boolean;

  constructor(
    private readonly gitDir: string,
    private readonly objects: TypeSource,
  ) {
    this.filesBackend = !existsSync(path.join(gitDir, 'reftable'));
  }

  /** The commit `ref` names (`rev-parse --verify <ref>^{commit}`), null when there is no such ref. */
  async read(ref: string): Promise<OrAskGit<string | null>> {
    if (!this.handles(ref)) return ASK_GIT;
    const value = this.valueSync(ref);
    if (value === ASK_GIT || value === null) return value;
    // Not a commit (a label's tag, to peel) or missing: git says what rev-parse says.
    return (await this.objects.type(value)) === 'commit' ? value : ASK_GIT;
  }

  /**
   * Move `ref` to `hash`. expectedOld: undefined = no check, null = must not exist, a hash = must be there. In
   * plain system calls (a hook call moves a ref each time; a dozen thread-pool round trips waited their turn).
   */
  async update(ref: string, hash: string, expectedOld?: string | null): Promise<OrAskGit<void>> {
    if (!this.handles(ref) || !OID.test(hash)) return ASK_GIT;
    if (lexists(path.join(this.gitDir, 'logs', ref))) return ASK_GIT; // git appends to a reflog that exists
    if ((await this.objects.type(hash)) === null) return ASK_GIT; // git refuses a ref to a missing object
    const file = path.join(this.gitDir, ref);
    try {
      mkdirPrivateSync(path.dirname(file));
    } catch {
      return ASK_GIT; // a file where a folder should be (refs/retrace/a when creating refs/retrace/a/b)
    }
    const lockFile = `${file}.lock`;
    let lock: number | null;
    try {
      lock = openSync(lockFile, 'wx', PRIVATE_FILE_MODE);
    } catch {
      return ASK_GIT; // held by another git (or stale): git gives its own "File exists" error
    }
    let renamed = false;
    try {
      const current = this.valueSync(ref);
      if (current === ASK_GIT) return ASK_GIT;
      if (expectedOld !== undefined && current !== expectedOld) return ASK_GIT; // git words the mismatch
      if (this.folderInTheWay(ref)) return ASK_GIT;
      writeSync(lock, `${hash}\n`);
      fsyncSync(lock);
      closeSync(lock);
      lock = null;
      renameSync(lockFile, file);
      renamed = true;
      return undefined;
    } catch {
      return ASK_GIT;
    } finally {
      if (lock !== null) closeSync(lock);
      if (!renamed) rmSync(lockFile, { force: true });
    }
  }

  private handles(ref: string): boolean {
    return this.filesBackend && SIMPLE_REF.test(ref) && !ref.endsWith('.lock');
  }

  /** The id the loose file or packed-refs holds (unpeeled), null when neither has the ref. */
  private valueSync(ref: string): OrAskGit<string | null> {
    let text: string | null = null;
    try {
      text = readFileSync(path.join(this.gitDir, ref), 'latin1');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR') return ASK_GIT;
    }
    if (text !== null) {
      const id = text.trimEnd();
      return OID.test(id) && /^[0-9a-f]{40}\n?$/.test(text) ? id : ASK_GIT;
    }
    const packed = this.packed();
    if (packed === ASK_GIT) return ASK_GIT;
    return packed.get(ref) ?? null;
  }

  /** A ref that would be a folder of this one, or this one a folder of it (git refuses both). */
  private folderInTheWay(ref: string): boolean {
    let st = null;
    try {
      st = lstatSync(path.join(this.gitDir, ref));
    } catch {
      st = null;
    }
    if (st?.isDirectory()) return true;
    const packed = this.packed();
    if (packed === ASK_GIT) return true;
    for (const name of packed.keys()) if (name.startsWith(`${ref}/`) || ref.startsWith(`${name}/`)) return true;
    return false;
  }

  private packed(): OrAskGit<Map<string, string>> {
    let text: string;
    try {
      text = readFileSync(path.join(this.gitDir, 'packed-refs'), 'utf8');
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ENOENT' ? new Map() : ASK_GIT;
    }
    const refs = new Map<string, string>();
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('#') || line.startsWith('^')) continue; // header, peeled tag lines
      const id = line.slice(0, 40);
      if (!OID.test(id) || line[40] !== ' ') return ASK_GIT;
      refs.set(line.slice(41), id);
    }
    return refs;
  }
}

function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

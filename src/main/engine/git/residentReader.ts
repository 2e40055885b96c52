import { ObjectReader, type GitObject, type ObjectInfo } from './objectReader';
import type { ObjectType } from './objects';
import type { GitRunner } from './runner';

/** An idle reader is closed after this long: a window left open does not keep a git process forever. */
const IDLE_CLOSE_MS = 30_000;

/**
 * One `git cat-file --batch` kept for a repository's reads (commit → tree, object types, a file's bytes), so
 * that a UI read costs pipe round trips instead of git process starts (issue 15). Opened on first use,
 * replaced when its process died or failed, closed after IDLE_CLOSE_MS without reads and on close(). It only
 * reads objects, so it never takes the writer lock (I10). git looks again for loose objects and new packs when
 * an id is not found, so objects written after the process started are found too.
 */
export class ResidentReader {
  private reader: ObjectReader | null = null;
  /** A `cat-file --batch-check` beside it, opened on the first info() (a restore's free-space check). */
  private checker: ObjectReader | null = null;
  private idle: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly git: GitRunner,
    private readonly idleMs = IDLE_CLOSE_MS,
  ) {}

  /** The object, or null when the repository does not have it. */
  read(id: string): Promise<GitObject | null> {
    return this.ask('reader', (r) => r.read(id));
  }

  /** The object's type and size without its content (`--batch-check`), or null when it is missing. */
  info(id: string): Promise<ObjectInfo | null> {
    return this.ask('checker', (r) => r.info(id));
  }

  async type(id: string): Promise<ObjectType | null> {
    return ((await this.read(id))?.type as ObjectType | undefined) ?? null;
  }

  /** Stop the process; a later read opens a new one (ShadowRepo.close ends it for good). */
  close(): void {
    this.closed = true;
    this.drop();
  }

  /** The live process (tests). */
  get process(): ObjectReader | null {
    return this.reader;
  }

  /**
   * One request to the process in `slot`. A process that died (killed, or gone with a replaced pack) is replaced
   * once; requests that were in flight together all retry on the one replacement.
   */
  private async ask<T>(slot: 'reader' | 'checker', request: (r: ObjectReader) => Promise<T>): Promise<T> {
    const proc = this.live(slot);
    try {
      return await request(proc);
    } catch (e) {
      if (proc.usable) throw e;
      if (this[slot] === proc) this[slot] = null;
      return await request(this.live(slot));
    } finally {
      this.armIdle();
    }
  }

  /** The process in `slot`, opened when there is none or it can no longer be used. */
  private live(slot: 'reader' | 'checker'): ObjectReader {
    this.closed = false;
    const proc = this[slot];
    if (proc?.usable) return proc;
    return (this[slot] = ObjectReader.open(this.git, {
      resident: true,
      ...(slot === 'checker' ? { check: true } : {}),
    }));
  }

  private armIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    if (this.closed) return;
    this.idle = setTimeout(() => this.drop(), this.idleMs);
    this.idle.unref();
  }

  private drop(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.reader?.close();
    this.reader = null;
    this.checker?.close();
    this.checker = null;
  }
}

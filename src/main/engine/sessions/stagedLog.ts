/**
 * A whole session log written aside, then put in place at once (issue 15: a long import wrote its log in one
 * append, so every message of a 100 MB transcript was held until the end). Lines go to `<id>.jsonl.importing`
 * beside the logs as they are made; `place()` syncs the file and renames it to `<id>.jsonl`: readers see no
 * session, then all of it. The rename is the "log lines" step of the write protocol (record.ts `publish`).
 *
 * The staging name does not end in .jsonl, so no listing takes it for a session. One left by a killed import
 * holds nothing anyone reads, and the next import of that session starts it over.
 */
import { closeSync, fsyncSync, renameSync, rmSync, writeSync } from 'node:fs';
import { RetraceError } from '../../../shared/errors';
import { mkdirPrivateSync, openPrivateSync } from '../privateFs';
import type { SessionEvent } from './events';
import type { SessionStore } from './store';

/** Lines are written in chunks of about this many bytes (one write call each). */
const CHUNK = 1 << 20;

export class StagedLog {
  private fd: number | null;
  private readonly staging: string;
  private pending: string[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly store: SessionStore,
    private readonly id: string,
  ) {
    this.staging = `${store.file(id)}.importing`;
    mkdirPrivateSync(store.dir);
    this.fd = openPrivateSync(this.staging, 'w');
  }

  /** Add records as lines (the header first). Nothing is visible until `place`. */
  write(records: readonly SessionEvent[]): void {
    for (const r of records) {
      const line = JSON.stringify(r) + '\n';
      this.pending.push(line);
      this.pendingBytes += line.length;
      if (this.pendingBytes >= CHUNK) this.drain();
    }
  }

  /** Make the log durable and visible as the session's: fails if the session appeared meanwhile. */
  place(): void {
    this.drain();
    const fd = this.open();
    fsyncSync(fd);
    closeSync(fd);
    this.fd = null;
    if (this.store.exists(this.id))
      throw new RetraceError('E_INVALID_INPUT', `session ${this.id} exists already in this workspace`);
    renameSync(this.staging, this.store.file(this.id));
  }

  /** Give up: close and remove the staging file (a failed import leaves nothing behind). */
  discard(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.pending = [];
    rmSync(this.staging, { force: true });
  }

  private drain(): void {
    if (this.pending.length === 0) return;
    const bytes = Buffer.from(this.pending.join(''), 'utf8');
    for (let off = 0; off < bytes.length;) off += writeSync(this.open(), bytes, off);
    this.pending = [];
    this.pendingBytes = 0;
  }

  private open(): number {
    if (this.fd === null) throw new Error('staged log already placed');
    return this.fd;
  }
}

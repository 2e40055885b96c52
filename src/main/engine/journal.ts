/**
 * Records of operations in flight (I8), and the log of what recovery did about them.
 *
 * Before a restore changes any file, the coordinator writes <ws.dir>/journal.json (fsync, atomic rename);
 * it clears it once the ledger holds the finished restore. A journal found by the next command means the
 * process died in between: recovery rolls the listed paths back to the safety checkpoint. A checkpoint
 * journals the window between its message append and its ref update, so a lagging ref is repaired.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecoveryReport, RestoreMode, RestoreTarget } from '../../shared/model';
import { openPrivateSync } from './privateFs';
import { appendJsonl, isNotFound, readJsonl } from './sessions/jsonl';
import { syncRound } from './syncFs';

/** The conversation part of a restore: which messages it hides and which it shows again. */
export interface VisibilityChange {
  session: string;
  hide: string[];
  show: string[];
}

export interface RestoreJournal {
  kind: 'restore';
  rid: string;
  ts: string;
  mode: RestoreMode | 'revert';
  /** Safety checkpoint (commit) of the state before; null when no file is touched. */
  safety: string | null;
  /** Exactly the paths the restore may write or delete; the rollback rewrites these from `safety`. */
  paths: string[];
  target: RestoreTarget;
  conversation: VisibilityChange | null;
  /** The tree the files were going to: a rollback changes back only paths that still hold its content (I9). */
  codeTree?: string;
  undoOf?: string;
}

export interface CheckpointJournal {
  kind: 'checkpoint';
  ts: string;
  session: string;
  hash: string;
  /** The session ref before this checkpoint (null: the session had none). */
  oldTip: string | null;
}

export type JournalRecord = RestoreJournal | CheckpointJournal;

export class Journal {
  readonly file: string;
  private readonly dir: string;

  constructor(wsDir: string) {
    this.dir = wsDir;
    this.file = join(wsDir, 'journal.json');
  }

  /**
   * Durably replace the journal: write a temp file, fsync it, rename over, fsync the folder. `durable: false`
   * (a checkpoint that syncs the whole file system before its log line, record.ts): no fsync here.
   */
  write(record: JournalRecord, opts: { durable?: boolean } = {}): void {
    const durable = opts.durable !== false;
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = openPrivateSync(tmp, 'w');
    try {
      writeFileSync(fd, JSON.stringify(record));
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    if (durable) this.syncDir();
  }

  /**
   * write(), with files written without a sync (a checkpoint's objects and the folders that got them) made
   * durable in the same round (syncFs.ts syncRound): their fsyncs and the journal's at once, the rename, then every
   * folder's at once — one wait for the disk where objects and journal in turn cost two (issue 15).
   *
   * `firstDurable`: what `also` lists is on disk, folders included, before the journal is renamed into place, then
   * the journal's folder is synced — one wait more. A restore's journal must never name a safety commit that a crash
   * could still lose: its rollback would have nothing to go back to. A checkpoint's journal only ever leads to a log
   * line written after this returns, so it need not wait.
   */
  async writeWith(
    record: JournalRecord,
    also: { files: readonly string[]; dirs: readonly string[] },
    opts: { firstDurable?: boolean } = {},
  ): Promise<void> {
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = openPrivateSync(tmp, 'w');
    try {
      writeFileSync(fd, JSON.stringify(record));
    } finally {
      closeSync(fd);
    }
    if (!opts.firstDurable) {
      await syncRound([tmp, ...also.files], [this.dir, ...also.dirs], () => renameSync(tmp, this.file));
      return;
    }
    await syncRound([tmp, ...also.files], also.dirs);
    renameSync(tmp, this.file);
    this.syncDir();
  }

  /** The pending record, or null. A journal that does not parse cannot have been renamed into place whole, so it is dropped. */
  read(): JournalRecord | null {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
    try {
      const rec = JSON.parse(text) as JournalRecord;
      return rec && (rec.kind === 'restore' || rec.kind === 'checkpoint') ? rec : null;
    } catch {
      return null;
    }
  }

  /**
   * `durable: false` (a checkpoint's journal, once its ref moved): the removal need not reach the disk now. If
   * a crash brings the file back, it is the newest journal (every write syncs the folder, and with it every
   * earlier removal), whose checkpoint is already in its log and its ref: recovery finds nothing to do.
   */
  clear(opts: { durable?: boolean } = {}): void {
    try {
      unlinkSync(this.file);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (opts.durable !== false) this.syncDir();
  }

  private syncDir(): void {
    let fd: number | undefined;
    try {
      fd = openSync(this.dir, 'r');
      fsyncSync(fd);
    } catch {
      // Some platforms cannot fsync a directory; the rename is still atomic.
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}

/** <ws.dir>/recovery.jsonl: what recovery repaired, listed by `retrace status`. */
export class RecoveryLog {
  readonly file: string;

  constructor(wsDir: string) {
    this.file = join(wsDir, 'recovery.jsonl');
  }

  add(reports: readonly RecoveryReport[]): void {
    if (reports.length > 0) appendJsonl(this.file, reports);
  }

  /** The newest `limit` reports, oldest first. */
  async recent(limit = 20): Promise<RecoveryReport[]> {
    const { records } = await readJsonl<RecoveryReport>(this.file);
    return records.slice(-limit);
  }
}

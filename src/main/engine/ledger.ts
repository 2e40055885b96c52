/**
 * The restore ledger: <ws.dir>/ledger.jsonl, one line per finished restore or undo (and per rollback done by
 * recovery). `undo` inverts one restore entry (by id, or the newest) — an undo is itself an entry, so undoing
 * it re-applies what it undid. Which entries are undone is derived from the entries alone (restore/history.ts).
 */
import { join } from 'node:path';
import type { LastRestore, RestoreMode, RestoreTarget } from '../../shared/model';
import type { VisibilityChange } from './journal';
import { appendJsonl, newestRecord, readJsonl } from './sessions/jsonl';

/** What a ledger entry did to the files: a restore's mode, or a revert (of a step or of a hunk). */
export type LedgerMode = RestoreMode | 'revert';

export interface LedgerRestore {
  type: 'restore';
  rid: string;
  ts: string;
  mode: LedgerMode;
  target: RestoreTarget;
  /** Safety checkpoint of the state before (null when the restore touched no file). */
  safety: string | null;
  /** The paths the restore planned to write or delete: exactly what its inverse must put back. */
  paths: string[];
  /** The paths it actually changed on disk. */
  changed: string[];
  conversation: VisibilityChange | null;
  /** Set on undo entries: the entry this one inverts. */
  undoOf?: string;
}

export interface LedgerRollback {
  type: 'rollback';
  rid: string;
  ts: string;
  detail: string;
}

export type LedgerEntry = LedgerRestore | LedgerRollback;

export class Ledger {
  readonly file: string;

  constructor(wsDir: string) {
    this.file = join(wsDir, 'ledger.jsonl');
  }

  append(entry: LedgerEntry): void {
    appendJsonl(this.file, [entry]);
  }

  async entries(): Promise<LedgerEntry[]> {
    return (await readJsonl<LedgerEntry>(this.file)).records;
  }

  async has(rid: string): Promise<boolean> {
    return (await this.entries()).some((e) => e.type === 'restore' && e.rid === rid);
  }

  /**
   * The entry a bare `undo` would invert: the newest restore (or undo) entry, read from the ledger's end (status
   * asks on every refresh, and each entry lists its paths: the whole ledger grows with every restore).
   */
  async newestRestore(): Promise<LedgerRestore | null> {
    return newestRecord<LedgerEntry>(this.file, (e) => e.type === 'restore') as Promise<LedgerRestore | null>;
  }

  async lastRestore(): Promise<LastRestore | null> {
    const e = await this.newestRestore();
    if (!e) return null;
    const last: LastRestore = { restore: e.rid, mode: e.mode, ts: e.ts, target: e.target };
    if (e.undoOf) last.undoOf = e.undoOf;
    return last;
  }
}

/** The visibility change that cancels `c`. */
export function invertVisibility(c: VisibilityChange): VisibilityChange {
  return { session: c.session, hide: c.show, show: c.hide };
}

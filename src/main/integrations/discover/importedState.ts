/**
 * What discovery imported, and how big each transcript was then: `<workspace data dir>/discovered.json`,
 * `{"<agent>:<id>": {"transcript", "size", "mtimeMs"}}`. A transcript whose size or mtime differs from its
 * record went on after the import ("changed"). Sessions without a record (recorded live by hooks, or imported by
 * hand) are never called changed, so `discover --import` never re-imports over a session it did not import.
 */
import { readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFilePrivateSync } from '../../engine/privateFs';
import type { FoundSession } from './found';

export interface TranscriptStamp {
  transcript: string;
  size: number;
  mtimeMs: number;
}

export class ImportedState {
  private readonly file: string;
  private readonly records: Record<string, TranscriptStamp>;

  constructor(workspaceDir: string) {
    this.file = join(workspaceDir, 'discovered.json');
    let records: Record<string, TranscriptStamp> = {};
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) records = parsed as typeof records;
    } catch {
      // missing or damaged: nothing imported by discovery yet (at worst a changed session is not re-imported)
    }
    this.records = records;
  }

  /** True when discovery imported it and its transcript has changed since. */
  changed(s: FoundSession): boolean {
    const rec = this.records[key(s)];
    if (!rec) return false;
    const now = stampOf(s.transcript);
    return !now || now.size !== rec.size || now.mtimeMs !== rec.mtimeMs;
  }

  /** Remember the transcript as it was when its import began (growth during the import shows as a change). */
  record(s: FoundSession, stamp: TranscriptStamp): void {
    this.records[key(s)] = stamp;
    const tmp = `${this.file}.tmp`;
    writeFilePrivateSync(tmp, JSON.stringify(this.records, null, 1) + '\n');
    renameSync(tmp, this.file);
  }
}

export function stampOf(transcript: string): TranscriptStamp | null {
  try {
    const st = statSync(transcript);
    return { transcript, size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return null;
  }
}

const key = (s: FoundSession): string => `${s.agent}:${s.id}`;

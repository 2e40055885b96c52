/**
 * <ws.dir>/missed.jsonl: checkpoints a hook could not record (I10: "a hook that still cannot record leaves a
 * visible mark with its reason — never silence"). Written by the hook that failed, so never under the writer
 * lock it could not get: each entry is one O_APPEND write of one short line, which concurrent appenders cannot
 * interleave. `retrace status`, `retrace log` and the timeline show them.
 */
import { join } from 'node:path';
import type { MissedCheckpoint } from '../../shared/model';
import { appendJsonl, readJsonl } from './sessions/jsonl';

/** Reasons are cut to this length: one line each, whatever the error said. */
const MAX_REASON = 300;

export class MissedLog {
  readonly file: string;

  constructor(wsDir: string) {
    this.file = join(wsDir, 'missed.jsonl');
  }

  add(entry: MissedCheckpoint): void {
    const reason = entry.reason.replace(/\s+/g, ' ').trim().slice(0, MAX_REASON);
    appendJsonl(this.file, [{ ...entry, reason }]);
  }

  /** The newest `limit` entries (optionally of one session), oldest first. */
  async recent(opts: { limit?: number; session?: string } = {}): Promise<MissedCheckpoint[]> {
    const { records } = await readJsonl<MissedCheckpoint>(this.file).catch(() => ({ records: [] }));
    const mine = opts.session === undefined ? records : records.filter((r) => r.session === opts.session);
    return mine.slice(-(opts.limit ?? 50));
  }
}

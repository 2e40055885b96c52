/**
 * Issue 15 item 6 — following live costs what is new: 100 sessions of 2,000 messages in one folder, a window
 * open on one of them; each time a message is appended, the server work the window's refresh causes (the
 * session list and the timeline's tail page, through the service the app calls). Target ≤ 50 ms median.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createService, type RetraceService } from '../src/main/service';
import type { ApiMethod, ApiResults } from '../src/shared/contract';
import { bulkMessageLine, bulkSessionId, writeBulkSession } from '../test/helpers/bulkLogs';
import { median, round1 } from './stats';

export interface FollowResult {
  sessions: number;
  messagesPerSession: number;
  /** Appends measured. */
  samples: number;
  medianMs: number;
  p95Ms: number;
  /** The window's first, full read of the list (for comparison). */
  firstListMs: number;
}

const SESSIONS = 100;
const MESSAGES = 2_000;
const SAMPLES = 30;

async function call<M extends ApiMethod>(s: RetraceService, method: M, args: unknown): Promise<ApiResults[M]> {
  const r = await s.dispatch(method, args);
  if (!r.ok) throw new Error(`${method}: ${r.error.code}: ${r.error.message}`);
  return r.value;
}

export async function benchLiveFollow(): Promise<FollowResult> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'retrace-bench-follow-'));
  const root = path.join(base, 'folder');
  mkdirSync(root);
  writeFileSync(path.join(root, 'a.txt'), 'a\n');
  const service = createService({ host: 'serve', dataHome: path.join(base, 'home'), watch: false });
  try {
    const { id: workspace } = await call(service, 'openWorkspace', { path: root });
    const dir = path.join(base, 'home', 'workspaces', workspace, 'sessions');
    mkdirSync(dir, { recursive: true });
    for (let s = 0; s < SESSIONS; s++) writeBulkSession(dir, s, MESSAGES);
    const open = 7;
    let t0 = performance.now();
    await call(service, 'listSessions', { workspace });
    const firstListMs = performance.now() - t0;
    let page = await call(service, 'timeline', { workspace, session: bulkSessionId(open), offset: 1500, limit: 500 });
    const times: number[] = [];
    for (let k = 0; k < SAMPLES; k++) {
      appendFileSync(path.join(dir, `${bulkSessionId(open)}.jsonl`), bulkMessageLine(open, MESSAGES + k) + '\n');
      t0 = performance.now();
      await call(service, 'listSessions', { workspace });
      page = await call(service, 'timeline', {
        workspace,
        session: bulkSessionId(open),
        offset: page.total - 499,
        limit: 500,
      });
      times.push(performance.now() - t0);
      if (page.messages.at(-1)?.id !== `m_${open}_${MESSAGES + k}`) throw new Error('the new message was not read');
    }
    const sorted = [...times].sort((a, b) => a - b);
    return {
      sessions: SESSIONS,
      messagesPerSession: MESSAGES,
      samples: SAMPLES,
      medianMs: round1(median(times)),
      p95Ms: round1(sorted[Math.ceil(sorted.length * 0.95) - 1]!),
      firstListMs: round1(firstListMs),
    };
  } finally {
    await service.close();
    rmSync(base, { recursive: true, force: true });
  }
}

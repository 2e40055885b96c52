/**
 * Following live costs what is new (issue 15, items 5 and 6): with 100 sessions of 2,000 messages, the server
 * work one appended message causes in an open window (the session list and the timeline's tail page) stays
 * small, and a 10,000-message session's first page opens fast. Real files in the log format, written directly
 * (the engine's write path would spend minutes on fsyncs to build 200,000 lines).
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bulkMessageLine,
  bulkSessionId,
  cleanupTempDirs,
  makeWorkspace,
  tempHome,
  writeBulkSession,
} from '../../test/helpers';
import type { ApiMethod, ApiResults } from '../shared/contract';
import { createService, type RetraceService } from './service';

afterAll(cleanupTempDirs);

async function call<M extends ApiMethod>(service: RetraceService, method: M, args: unknown): Promise<ApiResults[M]> {
  const r = await service.dispatch(method, args);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

const sid = bulkSessionId;
const messageLine = bulkMessageLine;
const writeSession = writeBulkSession;

/** A service with one open folder, and where its session logs go (<dataHome>/workspaces/<id>/sessions). */
async function openEmpty() {
  const home = tempHome();
  const service = createService({ host: 'serve', dataHome: home, watch: false });
  const { id: workspace } = await call(service, 'openWorkspace', { path: makeWorkspace({ 'a.txt': 'a\n' }) });
  const sessionsDir = join(home, 'workspaces', workspace, 'sessions');
  mkdirSync(sessionsDir, { recursive: true });
  return { service, workspace, sessionsDir };
}

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

describe('following live', () => {
  it('a new message among 100 sessions of 2,000 messages costs little server work', async () => {
    const { service, workspace, sessionsDir } = await openEmpty();
    for (let s = 0; s < 100; s++) writeSession(sessionsDir, s, 2000);
    const open = sid(7);

    // The window is open: it has the list and the timeline's tail once (the first, full reads).
    let t = process.hrtime.bigint();
    const list0 = await call(service, 'listSessions', { workspace });
    const firstList = ms(t);
    expect(list0).toHaveLength(100);
    let page = await call(service, 'timeline', { workspace, session: open, offset: 1500, limit: 500 });
    expect(page.total).toBe(2000);

    const samples: number[] = [];
    for (let k = 0; k < 10; k++) {
      appendFileSync(join(sessionsDir, `${open}.jsonl`), messageLine(7, 2000 + k) + '\n');
      t = process.hrtime.bigint();
      const list = await call(service, 'listSessions', { workspace });
      page = await call(service, 'timeline', { workspace, session: open, offset: page.total - 499, limit: 500 });
      samples.push(ms(t));
      expect(list.find((x) => x.id === open)!.messages).toBe(2001 + k);
      expect(page.total).toBe(2001 + k);
      expect(page.messages.at(-1)!.id).toBe(`m_7_${2000 + k}`);
    }
    samples.sort((a, b) => a - b);
    const median = samples[Math.floor(samples.length / 2)]!;
    console.log(
      `follow: first listSessions ${firstList.toFixed(1)} ms; one new message → list + tail page: median ${median.toFixed(1)} ms, max ${samples.at(-1)!.toFixed(1)} ms`,
    );
    // The target is 50 ms (~5 ms measured here; ~900 ms when every log was read again); generous for a busy machine.
    expect(median).toBeLessThan(100);
    await service.close();
  }, 120_000);

  it('a 10,000-message session opens fast', async () => {
    const { service, workspace, sessionsDir } = await openEmpty();
    writeSession(sessionsDir, 1, 10_000);
    const t = process.hrtime.bigint();
    const page = await call(service, 'timeline', { workspace, session: sid(1), offset: 0, limit: 500 });
    const first = ms(t);
    expect(page.total).toBe(10_000);
    const t2 = process.hrtime.bigint();
    await call(service, 'timeline', { workspace, session: sid(1), offset: 500, limit: 500 });
    const second = ms(t2);
    expect(first).toBeLessThan(1000);
    console.log(`open 10,000 messages: first page ${first.toFixed(1)} ms, next page ${second.toFixed(1)} ms`);
    await service.close();
  }, 60_000);
});

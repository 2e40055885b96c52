/**
 * Opening a folder shows its first view (the newest session's timeline at its latest checkpoint) before anything
 * else is asked for (issue 15: a 10,000-message session opens in ≤ 1 s): one firstView request (the sessions and
 * the page that holds that checkpoint), and the storage figure and the restores only once it is in. Only the bridge
 * `api` is stubbed, with one in-memory folder; the store runs as it does in the window.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Message, TimelinePage } from '../../../shared/model';

vi.mock('../bridge', () => import('./stubBridge'));

import { boot, openFolder, PAGE_SIZE, useStore } from './index';
import { stubBridge, type StubHandler } from './stubBridge';

const TOTAL = PAGE_SIZE * 4 + 30;
/** Every 7th message a checkpoint; the latest one on the fourth page. */
const messages: Message[] = Array.from({ length: TOTAL }, (_, i) => ({
  id: `m${i}`,
  ts: new Date(Date.UTC(2026, 11, 1, 10, 0, i)).toISOString(),
  role: 'user',
  text: `message ${i}`,
  hash: i % 7 === 0 && i < PAGE_SIZE * 4 - 5 ? i.toString(16).padStart(40, '0') : null,
  hidden: false,
}));
const checkpoints = messages.flatMap((m, index) => (m.hash ? [{ index, messageId: m.id, hash: m.hash }] : []));
const latest = checkpoints.at(-1)!;

const session = {
  id: 's',
  title: 's',
  source: 'claude-code' as const,
  agent: 'claude-code' as const,
  createdAt: '2026-12-01T10:00:00.000Z',
  updatedAt: '2026-12-01T11:00:00.000Z',
  messages: TOTAL,
  checkpoints: checkpoints.length,
};
/** The timeline page at `offset` (rows offset..offset+limit-1), as the service answers it. */
const pageAt = (offset: number, limit: number): TimelinePage => ({
  session: 's',
  total: TOTAL,
  offset,
  messages: messages.slice(offset, offset + limit),
  checkpoints,
});

const firstViewAnswer = () => ({
  sessions: [session],
  timeline: pageAt(Math.floor(latest.index / PAGE_SIZE) * PAGE_SIZE, PAGE_SIZE),
});
const folder = { id: 'ws-a', root: '/a', name: 'a' };

let calls: string[] = [];
/** What the host's init answers besides the folder (the serve host adds the first view when asked). */
let initExtra: (req: Record<string, unknown>) => object = () => ({});
let releaseFirstView: () => void = () => undefined;

beforeEach(() => {
  vi.stubGlobal('document', { title: '' });
  calls = [];
  initExtra = () => ({});
  const gate = new Promise<void>((r) => (releaseFirstView = r));
  const answer =
    (method: string, value: (req: Record<string, unknown>) => unknown, wait?: Promise<void>): StubHandler =>
    async (req) => {
      calls.push(method);
      if (wait) await wait;
      return { ok: true, value: value(req) };
    };
  stubBridge({
    init: answer('init', (req) => ({ host: 'serve', workspace: folder, platform: 'linux', ...initExtra(req) })),
    openWorkspace: answer('openWorkspace', () => folder),
    // The service's answer: the sessions, and the newest one's page that holds its latest checkpoint.
    firstView: answer(
      'firstView',
      (req) => {
        expect(req).toEqual({ workspace: 'ws-a', includeHidden: false, limit: PAGE_SIZE });
        return firstViewAnswer();
      },
      gate,
    ),
    listSessions: answer('listSessions', () => [session]),
    timeline: answer('timeline', (req): TimelinePage => {
      calls.push(`page ${(req.offset as number) / PAGE_SIZE}`);
      return pageAt(req.offset as number, req.limit as number);
    }),
    status: answer('status', () => ({ workspace: '/a', sessions: 1, checkpoints: 1, storageBytes: 0 })),
    restores: answer('restores', () => []),
    diffSummary: answer('diffSummary', (req) => ({ from: req.from, to: req.to, files: [] })),
    message: answer('message', () => messages[latest.index]),
  });
});

afterEach(() => {
  releaseFirstView();
  vi.unstubAllGlobals();
});

async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise((r) => setTimeout(r, 0));
}

describe('opening a folder', () => {
  it('asks for the first view in one request, and for status and restores only once it is in', async () => {
    const opened = openFolder('/a');
    await settle();
    // The first view's answer is held: nothing else has been asked for meanwhile.
    expect(calls).toEqual(['openWorkspace', 'firstView']);
    expect(useStore.getState().firstViewShown).toBe(false);
    releaseFirstView();
    await opened;
    await settle();
    const s = useStore.getState();
    expect(s.firstViewShown).toBe(true);
    expect(s.sessions).toEqual([session]);
    expect(s.sessionId).toBe('s');
    expect(s.total).toBe(TOTAL);
    expect(s.checkpoints[s.selected]?.hash).toBe(latest.hash);
    expect(s.messages[latest.index]?.id).toBe(latest.messageId);
    // No other page and no second listing: the first view's answer had all the window shows first.
    expect(calls.filter((c) => c.startsWith('page ') || c === 'listSessions' || c === 'timeline')).toEqual([]);
    expect(calls).toContain('status');
    expect(calls).toContain('restores');
  });

  it("shows the first view that came with init's answer: no other request before it shows", async () => {
    initExtra = (req) => {
      expect(req).toEqual({ firstView: { includeHidden: false, limit: PAGE_SIZE } });
      return { firstView: firstViewAnswer() };
    };
    await boot();
    const s = useStore.getState();
    expect(calls[0]).toBe('init');
    expect(s.firstViewShown).toBe(true);
    expect(s.sessionId).toBe('s');
    expect(s.checkpoints[s.selected]?.hash).toBe(latest.hash);
    expect(s.messages[latest.index]?.id).toBe(latest.messageId);
    await settle();
    expect(calls.filter((c) => ['firstView', 'listSessions', 'timeline'].includes(c) || c.startsWith('page '))).toEqual(
      [],
    );
    expect(calls).toContain('status');
    // The selected checkpoint's diff once the frame that shows it has painted (its git work would compete with it).
    expect(calls.indexOf('diffSummary')).toBeGreaterThan(calls.indexOf('status'));
    expect(useStore.getState().summary?.to).toBe(latest.hash);
  });

  it('asks for the first view when init came without it (the Electron host)', async () => {
    const booted = boot();
    await settle();
    expect(calls).toEqual(['init', 'firstView']);
    releaseFirstView();
    await booted;
    const s = useStore.getState();
    expect(s.firstViewShown).toBe(true);
    expect(s.checkpoints[s.selected]?.hash).toBe(latest.hash);
  });
});

/**
 * Opening a folder shows its first view (the newest session's timeline at its latest checkpoint) before anything
 * else is asked for (issue 15: a 10,000-message session opens in ≤ 1 s): one timeline request, for the page that
 * holds that checkpoint, and the storage figure and the restores only once that page is in. Only the bridge
 * `api` is stubbed, with one in-memory folder; the store runs as it does in the window.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Message, TimelinePage } from '../../../shared/model';
import type { Result } from '../../../shared/result';

type Handler = (req: Record<string, unknown>) => Promise<Result<unknown>>;
const bridge = vi.hoisted(() => ({ handlers: {} as Record<string, Handler> }));
vi.mock('../bridge', () => ({
  api: new Proxy(
    {},
    {
      get: (_target, method: string) =>
        bridge.handlers[method] ??
        (() => Promise.resolve({ ok: false, error: { code: 'E_INTERNAL', message: `not stubbed: ${method}` } })),
    },
  ),
}));

import { openFolder, PAGE_SIZE, useStore } from './index';

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

let calls: string[] = [];
let releaseTimeline: () => void = () => undefined;

beforeEach(() => {
  vi.stubGlobal('document', { title: '' });
  calls = [];
  const gate = new Promise<void>((r) => (releaseTimeline = r));
  const answer =
    (method: string, value: (req: Record<string, unknown>) => unknown, wait?: Promise<void>): Handler =>
    async (req) => {
      calls.push(method);
      if (wait) await wait;
      return { ok: true, value: value(req) };
    };
  bridge.handlers = {
    openWorkspace: answer('openWorkspace', () => ({ id: 'ws-a', root: '/a', name: 'a' })),
    listSessions: answer('listSessions', () => [
      {
        id: 's',
        title: 's',
        source: 'claude-code',
        agent: 'claude-code',
        createdAt: '2026-12-01T10:00:00.000Z',
        updatedAt: '2026-12-01T11:00:00.000Z',
        messages: TOTAL,
        checkpoints: checkpoints.length,
      },
    ]),
    timeline: answer(
      'timeline',
      (req): TimelinePage => {
        const offset =
          req.anchor === 'latest-checkpoint'
            ? Math.floor(latest.index / PAGE_SIZE) * PAGE_SIZE
            : (req.offset as number);
        calls.push(`page ${offset / PAGE_SIZE}`);
        return {
          session: 's',
          total: TOTAL,
          offset,
          messages: messages.slice(offset, offset + (req.limit as number)),
          checkpoints,
        };
      },
      new Promise<void>((r) => void gate.then(r)),
    ),
    status: answer('status', () => ({ workspace: '/a', sessions: 1, checkpoints: 1, storageBytes: 0 })),
    restores: answer('restores', () => []),
    diffSummary: answer('diffSummary', (req) => ({ from: req.from, to: req.to, files: [] })),
    message: answer('message', () => messages[latest.index]),
  };
});

afterEach(() => {
  releaseTimeline();
  vi.unstubAllGlobals();
});

async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise((r) => setTimeout(r, 0));
}

describe('opening a folder', () => {
  it('asks for the page of the latest checkpoint first, and for status and restores only once it is in', async () => {
    const opened = openFolder('/a');
    await settle();
    // The timeline's answer is held: nothing else has been asked for meanwhile.
    expect(calls).toEqual(['openWorkspace', 'listSessions', 'timeline']);
    expect(useStore.getState().firstViewShown).toBe(false);
    releaseTimeline();
    await opened;
    await settle();
    const s = useStore.getState();
    expect(s.firstViewShown).toBe(true);
    expect(s.checkpoints[s.selected]?.hash).toBe(latest.hash);
    expect(s.messages[latest.index]?.id).toBe(latest.messageId);
    // One page was asked for (the one that holds the latest checkpoint), then the rest of what the window shows.
    expect(calls.slice(0, 4)).toEqual([
      'openWorkspace',
      'listSessions',
      'timeline',
      `page ${Math.floor(latest.index / PAGE_SIZE)}`,
    ]);
    expect(calls.filter((c) => c.startsWith('page '))).toHaveLength(1);
    expect(calls).toContain('status');
    expect(calls).toContain('restores');
  });
});

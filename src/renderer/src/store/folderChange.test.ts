/**
 * Opening another folder leaves nothing of the first: not its pages, diff cache, selection, banner or ledger,
 * and not answers to the first folder's requests that arrive after the second opened. Only the bridge `api` is
 * stubbed, with two small in-memory folders (A and B); the store runs as it does in the window.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  DiffSummary,
  FileContents,
  Message,
  RestoreEntry,
  RestoreResult,
  SessionSummary,
  TimelinePage,
  WorkspaceInfo,
  WorkspaceStatus,
} from '../../../shared/model';

vi.mock('../bridge', () => import('./stubBridge'));

import {
  ensureRange,
  move,
  openFolder,
  PAGE_SIZE,
  previewRestore,
  restore,
  setCompare,
  setCompareFrom,
  toggleInline,
  toggleRestores,
  undoRestore,
  useStore,
} from './index';
import { handleEvent } from './events';
import { onFolderOpened } from './state';
import { stubBridge, type StubHandler } from './stubBridge';
import { appendTail, reloadTimeline } from './timeline';

interface FakeFolder {
  ws: WorkspaceInfo;
  session: SessionSummary;
  messages: Message[];
  restores: RestoreEntry[];
  /** Calls that wait for `release` before answering (to answer after another folder opened). */
  held: Set<string>;
  release: () => void;
  gate: Promise<void>;
  /** Diff requests answered, so the diff cache's size can be accounted for. */
  diffCalls: number;
}

/** A folder whose one session has `count` messages, every third one a checkpoint; ids and hashes name it. */
function makeFolder(name: string, count: number): FakeFolder {
  const messages: Message[] = Array.from({ length: count }, (_, i) => ({
    id: `${name}-m${i}`,
    ts: new Date(Date.UTC(2026, 11, 1, 10, 0, i)).toISOString(),
    role: i % 2 ? 'assistant' : 'user',
    text: `${name} message ${i}`,
    hash: i % 3 === 2 ? `${name.toLowerCase()}${String(i).padStart(39, '0')}` : null,
    hidden: false,
  }));
  let release = () => undefined as void;
  const gate = new Promise<void>((r) => (release = r));
  return {
    ws: { id: `ws-${name}`, root: `/folders/${name}`, name },
    session: {
      id: `${name}-session`,
      title: `${name} session`,
      source: 'claude-code' as SessionSummary['source'],
      agent: 'claude-code' as SessionSummary['agent'],
      createdAt: '2026-12-01T10:00:00.000Z',
      updatedAt: '2026-12-01T11:00:00.000Z',
      messages: count,
      checkpoints: messages.filter((m) => m.hash).length,
    },
    messages,
    restores: [],
    held: new Set(),
    release,
    gate,
    diffCalls: 0,
  };
}

let folders: FakeFolder[] = [];

/** The stub bridge: each call finds its folder by workspace id (or root) and answers from it. */
function serve(): void {
  const byId = (req: Record<string, unknown>) => folders.find((f) => f.ws.id === req.workspace)!;
  const answer =
    <T>(method: string, fn: (f: FakeFolder, req: Record<string, unknown>) => T): StubHandler =>
    async (req) => {
      const f = method === 'openWorkspace' ? folders.find((x) => x.ws.root === req.path)! : byId(req);
      if (f.held.has(method)) await f.gate;
      return { ok: true, value: fn(f, req) };
    };
  stubBridge({
    openWorkspace: answer('openWorkspace', (f) => f.ws),
    listSessions: answer('listSessions', (f) => [f.session]),
    status: answer('status', (f): WorkspaceStatus => ({
      workspace: f.ws.id,
      sessions: 1,
      checkpoints: f.session.checkpoints,
      storageBytes: 0,
      canUndo: f.restores.length > 0,
      lastRestore: null,
      recovered: [],
    })),
    restores: answer('restores', (f) => [...f.restores]),
    timeline: answer('timeline', (f, req) => pageOf(f, req.offset as number, req.limit as number)),
    // The first page stands in for the one that holds the latest checkpoint.
    firstView: answer('firstView', (f, req) => ({
      sessions: [f.session],
      timeline: pageOf(f, 0, req.limit as number),
    })),
    diffSummary: answer('diffSummary', (f, req): DiffSummary => {
      f.diffCalls++;
      const to = req.to as string;
      const file = { path: `${f.ws.name}-${to.slice(0, 6)}.txt`, status: 'modified' as const, binary: false };
      return { from: req.from as string | null, to, files: [{ ...file, insertions: 1, deletions: 0 }] };
    }),
    fileContents: answer('fileContents', (f, req): FileContents => {
      f.diffCalls++;
      return { path: req.path as string, binary: false, before: `${f.ws.name} before`, after: `${f.ws.name} after` };
    }),
    previewRestore: answer('previewRestore', (f, req): RestoreResult => restoreResult(f, req.target as string, true)),
    undo: answer('undo', (f) => ({ undone: f.restores[0]?.restore ?? 'none', restore: `${f.ws.name}-u`, changed: [] })),
    restore: answer('restore', (f, req): RestoreResult => {
      const result = restoreResult(f, req.target as string, false);
      f.restores.unshift({
        restore: result.restore,
        mode: 'code',
        target: result.target,
        ts: '2026-12-01T12:00:00.000Z',
        changed: 1,
        undone: false,
        undoable: true,
      });
      return result;
    }),
  });
}

function pageOf(f: FakeFolder, offset: number, limit: number): TimelinePage {
  const checkpoints = f.messages.flatMap((m, index) => (m.hash ? [{ index, messageId: m.id, hash: m.hash }] : []));
  return {
    session: f.session.id,
    total: f.messages.length,
    offset,
    messages: f.messages.slice(offset, offset + limit),
    checkpoints,
  };
}

function restoreResult(f: FakeFolder, target: string, dryRun: boolean): RestoreResult {
  return {
    restore: `${f.ws.name}-r${f.restores.length + 1}`,
    mode: 'code',
    target: { hash: target, message: `${f.ws.name}-m2`, session: f.session.id },
    safety: dryRun ? null : target,
    changed: [`${f.ws.name}.txt`],
    hidden: 0,
    dryRun,
  };
}

/** Let every request the store fired (and the ones those fired) be answered. */
async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise((r) => setTimeout(r, 0));
}

/** Everything the store holds that could name folder A. */
function traces(name: string): string[] {
  const s = useStore.getState();
  const text = JSON.stringify({ ...s, scope: undefined, messages: s.messages.filter(Boolean) });
  return text.match(new RegExp(`${name}-[a-z0-9-]+`, 'g')) ?? [];
}

let a: FakeFolder;
let b: FakeFolder;

beforeEach(() => {
  vi.stubGlobal('document', { title: '' });
  // Folder A spans three pages, so it has pages beyond the first to load and to leave behind.
  a = makeFolder('A', PAGE_SIZE * 2 + 200);
  b = makeFolder('B', PAGE_SIZE * 2 + 50);
  folders = [a, b];
  serve();
});

afterEach(() => {
  a.release();
  b.release();
  vi.unstubAllGlobals();
});

/** Open A and use every part of the store on it. */
async function useFolderA(): Promise<void> {
  await openFolder(a.ws.root);
  await settle();
  await ensureRange(0, a.messages.length - 1);
  move(-2);
  move(1, { focus: true });
  setCompare('pair');
  setCompareFrom(3);
  toggleInline();
  toggleRestores();
  await restore('code');
  await previewRestore();
  await settle();
  const s = useStore.getState();
  // A is really in use: all its pages, a banner, its ledger, a diff and a preview.
  expect(s.messages.every((m) => m?.id.startsWith('A-'))).toBe(true);
  expect(s.scope.loadedPages).toEqual(new Set([0, 1, 2]));
  expect(s.banner?.rid).toBe('A-r1');
  expect(s.restores.map((e) => e.restore)).toEqual(['A-r1']);
  expect(s.preview).not.toBeNull();
  expect(s.file?.after).toBe('A after');
  expect(s.direction).toBe(1);
  expect(s.scope.diffs.size).toBeGreaterThan(0);
}

describe('opening another folder', () => {
  it('leaves nothing of the first: pages, diff cache, selection, banner, restores', async () => {
    await useFolderA();
    const scopeA = useStore.getState().scope;

    await openFolder(b.ws.root);
    await settle();
    const s = useStore.getState();

    expect(s.workspace).toEqual(b.ws);
    expect(s.sessions).toEqual([b.session]);
    expect(s.sessionId).toBe(b.session.id);
    expect(traces('A')).toEqual([]);
    // Pages: B's first page and the page of its latest checkpoint, nothing else.
    expect(s.total).toBe(b.messages.length);
    const lastCheckpoint = s.checkpoints[s.checkpoints.length - 1]!;
    expect(s.scope).not.toBe(scopeA);
    expect(s.scope.loadedPages).toEqual(new Set([0, Math.floor(lastCheckpoint.index / PAGE_SIZE)]));
    expect(s.scope.pagesInFlight.size).toBe(0);
    // Selection and diff: B's latest checkpoint, compared step by step, as a fresh folder starts.
    expect(s.selected).toBe(s.checkpoints.length - 1);
    expect(s.compare).toBe('step');
    expect(s.compareFrom).toBe(0);
    expect(s.inline).toBe(false);
    expect(s.direction).toBe(-1);
    expect(s.focusRequest).toBe(0);
    expect(s.summary?.to).toBe(lastCheckpoint.hash);
    expect(s.file?.after).toBe('B after');
    // Restore: no banner, preview or ledger of A, the panel closed.
    expect(s.banner).toBeNull();
    expect(s.preview).toBeNull();
    expect(s.restores).toEqual([]);
    expect(s.restoresOpen).toBe(false);
    expect(s.busy).toBe(false);
    expect(s.restoring).toBeNull();
    // Diff cache: a new one, holding B's answers only (each answer: its request and its value).
    expect(s.scope.diffs).not.toBe(scopeA.diffs);
    expect(s.scope.diffs.size).toBe(2 * b.diffCalls);
  });

  it('drops answers to the first folder that arrive after the second opened', async () => {
    await openFolder(a.ws.root);
    await settle();
    // A's middle page and a new diff are asked for, and answered only once B is open.
    a.held = new Set(['timeline', 'diffSummary', 'fileContents', 'restores', 'status', 'listSessions', 'firstView']);
    void ensureRange(0, a.messages.length - 1);
    setCompare('since');
    await settle();
    expect(useStore.getState().scope.pagesInFlight).toEqual(new Set([1]));

    await openFolder(b.ws.root);
    await settle();
    const before = useStore.getState();
    const cacheSize = before.scope.diffs.size;
    a.release();
    await settle();
    const s = useStore.getState();

    expect(traces('A')).toEqual([]);
    // B's middle page was never asked for: still a gap, not A's rows.
    expect(s.messages.slice(PAGE_SIZE, 2 * PAGE_SIZE).every((m) => m === undefined)).toBe(true);
    expect(s.scope.loadedPages.has(1)).toBe(false);
    expect(s.scope.diffs.size).toBe(cacheSize);
    expect(s.compare).toBe('step');
    expect(s.status?.workspace).toBe(b.ws.id);
    expect(s.sessions).toEqual([b.session]);
  });

  it('tells a feature store beside this one, once per folder opened, to forget the old folder', async () => {
    await openFolder(a.ws.root);
    await settle();
    const reset = vi.fn();
    const unsubscribe = onFolderOpened(reset);
    move(-1);
    toggleRestores();
    await settle();
    expect(reset).not.toHaveBeenCalled();
    await openFolder(b.ws.root);
    await settle();
    unsubscribe();
    expect(reset).toHaveBeenCalledTimes(1);
  });
});

describe('new messages while the list reloads', () => {
  it('an undo that brings rewound checkpoints back keeps the selection where the undo left it', async () => {
    const small = makeFolder('C', 12); // checkpoints at rows 2, 5, 8, 11
    folders.push(small);
    await openFolder(small.ws.root);
    await settle();
    const latest = () => useStore.getState().checkpoints.length - 1;
    expect(useStore.getState().selected).toBe(latest());
    const kept = useStore.getState().checkpoints[latest()]!.hash;
    // The undo shows three rewound messages again, one a checkpoint after the selected one, and the window gets
    // both a full reload and a "new messages" event; the reload's answer comes after the event fired.
    small.messages.push(
      ...makeFolder('C', 15)
        .messages.slice(12)
        .map((m) => ({ ...m, id: `C-back-${m.id}` })),
    );
    small.held.add('timeline');
    const reload = reloadTimeline({ follow: false });
    const tail = appendTail();
    small.release();
    await Promise.all([reload, tail]);
    await settle();
    const s = useStore.getState();
    expect(s.checkpoints).toHaveLength(5);
    expect(s.checkpoints[s.selected]!.hash).toBe(kept);
    expect(s.total).toBe(15);
  });

  it("the event of this window's own undo, arriving before its answer, does not move the selection", async () => {
    const small = makeFolder('D', 12);
    folders.push(small);
    await openFolder(small.ws.root);
    await settle();
    const kept = useStore.getState().checkpoints.at(-1)!.hash;
    // The undo shows rewound messages again; the folder's watcher says "new messages" before the undo answers.
    small.held.add('undo');
    const undo = undoRestore();
    small.messages.push(
      ...makeFolder('D', 15)
        .messages.slice(12)
        .map((m) => ({ ...m, id: `D-back-${m.id}` })),
    );
    handleEvent({ type: 'messages-appended', workspace: small.ws.id, session: small.session.id });
    await settle();
    small.release();
    await undo;
    await settle();
    const s = useStore.getState();
    expect(s.total).toBe(15);
    expect(s.checkpoints).toHaveLength(5);
    expect(s.checkpoints[s.selected]!.hash).toBe(kept);
  });

  it('new messages that arrive while nothing is restored are followed when the latest checkpoint is selected', async () => {
    const small = makeFolder('E', 12);
    folders.push(small);
    await openFolder(small.ws.root);
    await settle();
    small.messages.push(...makeFolder('E', 15).messages.slice(12));
    handleEvent({ type: 'messages-appended', workspace: small.ws.id, session: small.session.id });
    await settle();
    const s = useStore.getState();
    expect(s.total).toBe(15);
    expect(s.selected).toBe(4);
  });
});

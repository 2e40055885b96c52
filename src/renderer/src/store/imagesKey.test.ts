/**
 * The Image diff's pictures belong to the comparison their content key names. The view that asks for them loads
 * lazily, so it can ask after the user has moved on to another checkpoint; that late ask must not fetch the
 * checkpoint now selected and keep its pictures under the first one's key (the picture would then be missing
 * from that checkpoint for as long as the folder stays open). Only the bridge is stubbed.
 */
import { beforeEach, expect, it, vi } from 'vitest';
import type { DiffSummary, ImageSides, Message, TimelinePage, WorkspaceInfo } from '../../../shared/model';

vi.mock('../bridge', () => import('./stubBridge'));

import { move, openFolder, useStore } from './index';
import { contentsKey } from './diffCache';
import { loadImages, useFiles } from './files';
import { stubBridge } from './stubBridge';

const ws: WorkspaceInfo = { id: 'ws-1', root: '/folders/pics', name: 'pics' };
const hash = (i: number) => String(i + 1).repeat(40);
const messages: Message[] = [0, 1, 2].map((i) => ({
  id: `m${i}`,
  ts: new Date(Date.UTC(2026, 11, 1, 10, 0, i)).toISOString(),
  role: 'system',
  text: `checkpoint ${i}`,
  hash: hash(i),
  hidden: false,
}));
const session = {
  id: 's1',
  title: 'pictures',
  source: 'cli' as const,
  agent: 'cli' as const,
  createdAt: messages[0]!.ts,
  updatedAt: messages[2]!.ts,
  messages: 3,
  checkpoints: 3,
};
const page = (): TimelinePage => ({
  session: session.id,
  total: 3,
  offset: 0,
  messages,
  checkpoints: messages.map((m, index) => ({ index, messageId: m.id, hash: m.hash! })),
});
/** Each checkpoint's logo.png is a different picture: its bytes name the checkpoint. */
const picture = (to: string) => ({ mime: 'image/png', base64: `png-of-${to.slice(0, 4)}`, size: 8, tooLarge: false });
let asked: string[] = [];

beforeEach(() => {
  vi.stubGlobal('document', { title: '' });
  asked = [];
  const ok = <T>(value: T) => Promise.resolve({ ok: true as const, value });
  stubBridge({
    openWorkspace: () => ok(ws),
    listSessions: () => ok([session]),
    status: () =>
      ok({
        workspace: ws.id,
        sessions: 1,
        checkpoints: 3,
        storageBytes: 0,
        canUndo: false,
        lastRestore: null,
        recovered: [],
      }),
    restores: () => ok([]),
    timeline: () => ok(page()),
    firstView: () => ok({ sessions: [session], timeline: page() }),
    diffSummary: (req): Promise<{ ok: true; value: DiffSummary }> =>
      ok({
        from: req.from as string | null,
        to: req.to as string,
        files: [{ path: 'logo.png', status: 'modified', binary: true, insertions: 0, deletions: 0 }],
      }),
    fileImages: (req) => {
      asked.push(req.to as string);
      return ok<ImageSides>({
        path: 'logo.png',
        before: picture(req.from as string),
        after: picture(req.to as string),
      } as ImageSides);
    },
  });
});

const settle = async () => {
  for (let i = 0; i < 30; i++) await new Promise((r) => setTimeout(r, 0));
};

it('a late ask for a checkpoint the user has left fetches nothing, and that checkpoint later shows its own picture', async () => {
  await openFolder(ws.root);
  await settle();
  expect(useStore.getState().selected).toBe(2);
  const third = contentsKey(ws.id, hash(1), hash(2), 'logo.png');
  expect(useStore.getState().fileKey).toBe(third);

  move(-1); // the user leaves before the third checkpoint's picture view has loaded
  await settle();
  await loadImages(third, 'logo.png'); // ...which then mounts and asks
  expect(asked).toEqual([]);

  move(1);
  await settle();
  await loadImages(third, 'logo.png');
  expect(asked).toEqual([hash(2)]);
  expect(useFiles.getState().images?.sides?.after?.base64).toBe(picture(hash(2)).base64);
});

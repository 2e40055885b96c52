/**
 * Keeping history within a budget (issue 14 item 5), on real git: gc under a budget removes the oldest sessions
 * until the storage is within it, keeps labelled and live ones, leaves `git fsck` clean and every surviving
 * checkpoint restorable; keep-days; forget (refused for a labelled one unless forced); a restore's safety
 * checkpoint still undoes after the session it targeted is forgotten.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../../test/helpers';
import { writeImportedSession } from '../integrations/importSession';
import { resolveWorkspace } from '../engine/workspace';
import { WorkspaceEngine } from '../engine/workspaceEngine';
import { forgetLocked, gcLocked } from '../engine/storage/collect';
import { LABEL_PREFIX } from '../engine/storage/keep';
import { measureStorage } from '../engine/storage/measure';
import { storageReport } from '../engine/storage/report';

afterAll(cleanupTempDirs);

const DAY = 86_400_000;
const BIG = 256 * 1024;

const git = (gitDir: string, args: string[]): string =>
  execFileSync('git', [`--git-dir=${gitDir}`, ...args], {
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  }).toString();

interface Made {
  root: string;
  engine: WorkspaceEngine;
  gitDir: string;
  /** Session id → its checkpoint hash and the bytes of big.bin in it. */
  sessions: Map<string, { hash: string; big: Buffer }>;
}

/**
 * A workspace with one imported session per age (days ago; 0 = active just now), each holding its own
 * incompressible big.bin, so each session alone reaches about BIG bytes (an imported session's chain starts
 * on its own); then `recorded`, recorded now through the CLI's path (its first checkpoint continues from the
 * newest one, record.ts).
 */
async function workspaceWithSessions(ages: Record<string, number>, recorded: string[] = []): Promise<Made> {
  const root = makeWorkspace({ 'README.md': '# kept\n' });
  const ws = await resolveWorkspace(root, { dataHome: tempHome() });
  const engine = new WorkspaceEngine(ws);
  const sessions = new Map<string, { hash: string; big: Buffer }>();
  for (const [id, daysAgo] of Object.entries(ages)) {
    const big = randomBytes(BIG);
    writeFileSync(path.join(root, 'big.bin'), big);
    const ts = new Date(Date.now() - daysAgo * DAY).toISOString();
    await engine.write(async () => {
      const tree = (await (await engine.shadow()).snapshotTree()).tree;
      await writeImportedSession(engine, {
        id,
        source: 'claude-code',
        importer: 'test',
        messages: [{ role: 'user', text: `work of ${id}`, ts, checkpoint: { tree } }],
      });
    });
    sessions.set(id, { hash: (await engine.session(id)).messages[0]!.hash!, big });
  }
  for (const id of recorded) {
    const big = randomBytes(BIG);
    writeFileSync(path.join(root, 'big.bin'), big);
    sessions.set(id, { hash: (await engine.checkpoint({ session: id })).hash!, big });
  }
  return { root, engine, gitDir: (await engine.shadow()).gitDir, sessions };
}

/** A label as the label command makes it: refs/retrace/labels/<commit> → an annotated tag of that commit. */
function makeLabel(gitDir: string, commit: string, text: string): void {
  const body = `object ${commit}\ntype commit\ntag label\ntagger Retrace <retrace@localhost> 1700000000 +0000\n\n${text}\n`;
  const tag = execFileSync('git', [`--git-dir=${gitDir}`, 'mktag'], { input: body })
    .toString()
    .trim();
  git(gitDir, ['update-ref', `${LABEL_PREFIX}${commit}`, tag]);
}

/** Restores each surviving session's checkpoint and checks big.bin came back byte for byte. */
async function expectRestorable(m: Made, ids: string[]): Promise<void> {
  for (const id of ids) {
    const s = m.sessions.get(id)!;
    await m.engine.restore({ target: s.hash, mode: 'code' });
    expect(readFileSync(path.join(m.root, 'big.bin')).equals(s.big)).toBe(true);
  }
}

describe('gc within a budget', () => {
  it('removes the oldest sessions until storage is within the budget; labelled and live ones stay; fsck clean', async () => {
    const m = await workspaceWithSessions({ s1: 5, labelled: 4, s3: 3, s4: 2, live: 0 });
    makeLabel(m.gitDir, m.sessions.get('labelled')!.hash, 'release');
    const before = await measureStorage(m.engine);
    // Room for all but about two sessions' worth: s1 and then s3 go (the labelled one is skipped), s4 stays.
    const budget = before - Math.round(1.5 * BIG);
    const res = await m.engine.write(() => gcLocked(m.engine, { maxBytes: budget, keepDays: null }));

    expect(res.removed).toEqual(['s1', 's3']);
    expect(res.kept).toEqual([
      { session: 'labelled', reason: expect.stringMatching(/^labelled \(checkpoint [0-9a-f]{7}\)$/) },
      { session: 'live', reason: expect.stringMatching(/^being recorded now/) },
    ]);
    expect(res.underBudget).toBe(true);
    expect(res.storageBytes).toBeLessThanOrEqual(budget);
    expect(res.storageBytes).toBe(await measureStorage(m.engine));
    expect((await m.engine.listSessions()).map((s) => s.id).sort()).toEqual(['labelled', 'live', 's4']);
    // The removed sessions' objects left the disk; the rest is whole.
    for (const gone of ['s1', 's3'])
      expect(() => git(m.gitDir, ['cat-file', '-e', m.sessions.get(gone)!.hash])).toThrow();
    git(m.gitDir, ['fsck', '--full', '--strict', '--no-dangling']);
    await expectRestorable(m, ['labelled', 's4', 'live']);
    git(m.gitDir, ['fsck', '--full', '--strict', '--no-dangling']);
  });

  it('keep-days removes what is older whatever the budget, and nothing younger', async () => {
    const m = await workspaceWithSessions({ a: 40, b: 31, c: 29, d: 1 });
    const res = await m.engine.write(() => gcLocked(m.engine, { maxBytes: null, keepDays: 30 }));
    expect(res.removed).toEqual(['a', 'b']);
    expect((await m.engine.listSessions()).map((s) => s.id).sort()).toEqual(['c', 'd']);
    git(m.gitDir, ['fsck', '--full', '--strict', '--no-dangling']);
    await expectRestorable(m, ['c', 'd']);
  });

  it('never removes the session being recorded now, even over the budget, and says so', async () => {
    const m = await workspaceWithSessions({ old: 2 }, ['now']);
    const res = await m.engine.write(() => gcLocked(m.engine, { maxBytes: 0, keepDays: 0 }));
    expect(res.removed).toEqual(['old']);
    expect(res.kept).toEqual([{ session: 'now', reason: expect.stringMatching(/being recorded now/) }]);
    expect(res.underBudget).toBe(false);
    await expectRestorable(m, ['now']);
  });
});

describe('gc with recorded sessions, each continuing from the one before', () => {
  /** Recorded the way hooks record, `daysAgo` old: its first checkpoint's parent is the newest one (record.ts). */
  async function recordOld(m: Made, id: string, daysAgo: number): Promise<void> {
    const big = randomBytes(BIG);
    writeFileSync(path.join(m.root, 'big.bin'), big);
    const ts = new Date(Date.now() - daysAgo * DAY).toISOString();
    const r = await m.engine.record({ session: id, role: 'user', text: `work of ${id}`, ts, checkpoint: true });
    m.sessions.set(id, { hash: r.hash!, big });
  }

  it('keeps, for the budget, a session whose snapshots a kept one still reaches (it would free nothing)', async () => {
    const m = await workspaceWithSessions({});
    await recordOld(m, 'a', 5);
    await recordOld(m, 'b', 4);
    const live = randomBytes(BIG);
    writeFileSync(path.join(m.root, 'big.bin'), live);
    m.sessions.set('live', { hash: (await m.engine.checkpoint({ session: 'live' })).hash!, big: live });
    // live continues from b, b from a: removing a or b would free only their logs.
    const res = await m.engine.write(() => gcLocked(m.engine, { maxBytes: BIG, keepDays: null }));
    expect(res.removed).toEqual([]);
    expect(res.underBudget).toBe(false);
    expect((await m.engine.listSessions()).map((s) => s.id).sort()).toEqual(['a', 'b', 'live']);
    git(m.gitDir, ['fsck', '--full', '--strict', '--no-dangling']);
  });

  it('takes an older session once the later one that reached it goes too, and storage falls within the budget', async () => {
    const m = await workspaceWithSessions({});
    await recordOld(m, 'a', 5);
    await recordOld(m, 'b', 4); // continues from a
    // A session that starts on its own (imported), recorded now.
    const fresh = randomBytes(BIG);
    writeFileSync(path.join(m.root, 'big.bin'), fresh);
    await m.engine.write(async () => {
      const tree = (await (await m.engine.shadow()).snapshotTree()).tree;
      await writeImportedSession(m.engine, {
        id: 'fresh',
        source: 'claude-code',
        importer: 'test',
        messages: [{ role: 'user', text: 'fresh', ts: new Date().toISOString(), checkpoint: { tree } }],
      });
    });
    const before = await measureStorage(m.engine);
    const budget = before - Math.round(1.5 * BIG);
    const res = await m.engine.write(() => gcLocked(m.engine, { maxBytes: budget, keepDays: null }));
    expect(res.removed).toEqual(['a', 'b']);
    expect(res.storageBytes).toBeLessThanOrEqual(budget);
    git(m.gitDir, ['fsck', '--full', '--strict', '--no-dangling']);
    expect((await m.engine.listSessions()).map((s) => s.id)).toEqual(['fresh']);
  });
});

describe('forget', () => {
  it('leaves no later checkpoint built on a tree it dropped (the last snapshot’s, a scan edit’s)', async () => {
    const root = makeWorkspace({ 'README.md': '# kept\n', 'd/x.txt': 'x1\n', 'e/y.txt': 'y1\n' });
    const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempHome() }));
    const gitDir = (await engine.shadow()).gitDir;
    await engine.checkpoint({ session: 'gone' });
    // The last snapshot's tree now holds a folder (d/) that only this session's checkpoint reaches.
    writeFileSync(path.join(root, 'd/x.txt'), 'x2\n');
    await engine.checkpoint({ session: 'gone', hintPaths: ['d/x.txt'] }); // warm: the last tree, edited
    writeFileSync(path.join(root, 'd/x.txt'), 'x3\n');
    await engine.checkpoint({ session: 'gone' }); // a full scan, its tree edited from the index's
    await engine.write(() => forgetLocked(engine, 'gone', { force: true }));
    writeFileSync(path.join(root, 'e/y.txt'), 'y2\n');
    const warm = await engine.checkpoint({ session: 'next', hintPaths: ['e/y.txt'] });
    writeFileSync(path.join(root, 'e/y.txt'), 'y3\n');
    const cold = await engine.checkpoint({ session: 'next' });
    git(gitDir, ['fsck', '--full', '--strict', '--no-dangling']);
    for (const c of [warm.hash!, cold.hash!])
      expect(git(gitDir, ['ls-tree', '-r', '--name-only', c])).toContain('d/x.txt');
    expect(git(gitDir, ['show', `${cold.hash}:d/x.txt`])).toBe('x3\n');
  });

  it('removes one session whatever its age; storage falls by about what the report said it would free', async () => {
    const m = await workspaceWithSessions({ old: 3, mid: 2, live: 0 });
    const report = await storageReport(m.engine);
    expect(report.sessions.map((s) => s.id)).toEqual(['old', 'mid', 'live']); // oldest first
    const mid = report.sessions.find((s) => s.id === 'mid')!;
    expect(mid.bytes).toBeGreaterThan(BIG * 0.9);
    const before = await measureStorage(m.engine);
    const res = await m.engine.write(() => forgetLocked(m.engine, 'mid'));
    expect(res.removed).toEqual(['mid']);
    expect(before - res.storageBytes).toBeGreaterThan(BIG * 0.9);
    expect(m.engine.sessions.exists('mid')).toBe(false);
    expect(() => git(m.gitDir, ['cat-file', '-e', m.sessions.get('mid')!.hash])).toThrow();
    git(m.gitDir, ['fsck', '--full', '--strict', '--no-dangling']);
    await expectRestorable(m, ['old', 'live']);
  });

  it('refuses a labelled or live session (E_KEPT) unless forced; forced, the label goes with it', async () => {
    const m = await workspaceWithSessions({ tagged: 3, live: 0 });
    const hash = m.sessions.get('tagged')!.hash;
    makeLabel(m.gitDir, hash, 'keep me');
    await expect(m.engine.write(() => forgetLocked(m.engine, 'tagged'))).rejects.toMatchObject({ code: 'E_KEPT' });
    await expect(m.engine.write(() => forgetLocked(m.engine, 'live'))).rejects.toMatchObject({ code: 'E_KEPT' });
    await expect(m.engine.write(() => forgetLocked(m.engine, 'nope'))).rejects.toMatchObject({
      code: 'E_UNKNOWN_SESSION',
    });
    expect(m.engine.sessions.exists('tagged')).toBe(true);

    await m.engine.write(() => forgetLocked(m.engine, 'tagged', { force: true }));
    expect(git(m.gitDir, ['for-each-ref', LABEL_PREFIX])).toBe('');
    expect(() => git(m.gitDir, ['cat-file', '-e', hash])).toThrow();
    git(m.gitDir, ['fsck', '--full', '--strict', '--no-dangling']);
  });

  it("keeps a restore's safety checkpoint: the restore still undoes after its target session is forgotten", async () => {
    const m = await workspaceWithSessions({ target: 3, live: 0 });
    const now = readFileSync(path.join(m.root, 'big.bin'));
    const restore = await m.engine.restore({ target: m.sessions.get('target')!.hash, mode: 'code' });
    expect(readFileSync(path.join(m.root, 'big.bin')).equals(m.sessions.get('target')!.big)).toBe(true);
    await m.engine.write(() => forgetLocked(m.engine, 'target'));
    git(m.gitDir, ['fsck', '--full', '--strict', '--no-dangling']);
    const undo = await m.engine.undo(restore.restore);
    expect(undo.changed).toEqual(['big.bin']);
    expect(readFileSync(path.join(m.root, 'big.bin')).equals(now)).toBe(true);
  });

  it('a session a later one continues from frees only its log: the report says so, and forgetting it loses no later checkpoint', async () => {
    // Recorded sessions chain: the second's first checkpoint has the first's last one as parent (record.ts).
    const m = await workspaceWithSessions({}, ['first', 'second']);
    const first = (await storageReport(m.engine)).sessions.find((s) => s.id === 'first')!;
    expect(first.bytes).toBeLessThan(4096); // its log: its snapshots stay reachable from 'second'
    await m.engine.write(() => forgetLocked(m.engine, 'first', { force: true }));
    git(m.gitDir, ['cat-file', '-e', m.sessions.get('first')!.hash]); // still there, as second's parent
    git(m.gitDir, ['fsck', '--full', '--strict', '--no-dangling']);
    await expectRestorable(m, ['second']);
  });

  it('a conversation restore of a forgotten session cannot be undone: E_UNKNOWN_SESSION, nothing changed', async () => {
    const m = await workspaceWithSessions({ talk: 3, live: 0 });
    await m.engine.write(() =>
      m.engine.recordLocked({
        session: 'talk',
        role: 'assistant',
        text: 'later reply',
        ts: new Date(Date.now() - 2 * DAY).toISOString(),
      }),
    );
    const restore = await m.engine.restore({ target: m.sessions.get('talk')!.hash, mode: 'conversation' });
    expect(restore.hidden).toBe(1);
    // The restore's rewind is activity of its own: the session looks recorded now, so forgetting it is forced.
    await m.engine.write(() => forgetLocked(m.engine, 'talk', { force: true }));
    const before = readFileSync(path.join(m.root, 'big.bin'));
    await expect(m.engine.undo(restore.restore)).rejects.toMatchObject({ code: 'E_UNKNOWN_SESSION' });
    expect(m.engine.sessions.exists('talk')).toBe(false);
    expect(readFileSync(path.join(m.root, 'big.bin')).equals(before)).toBe(true);
    expect((await m.engine.status()).recovered).toEqual([]);
    // Nothing was left for recovery to trip over: the next writer works.
    expect((await m.engine.checkpoint({ session: 'live' })).hash).toMatch(/^[0-9a-f]{40}$/);
  });

  it('removes the archived transcript with the session', async () => {
    const m = await workspaceWithSessions({ imported: 3 });
    const source = path.join(m.root, '..', `transcript-${process.pid}.jsonl`);
    writeFileSync(source, '{"type":"user"}\n');
    const { archiveTranscript } = await import('../engine/storage/archive');
    const info = await archiveTranscript(m.engine.ws, 'imported', source);
    rmSync(source);
    expect(info.bytes).toBe(16);
    const archived = path.join(m.engine.ws.dir, 'archive', 'imported.gz');
    expect(existsSync(archived)).toBe(true);
    await m.engine.write(() => forgetLocked(m.engine, 'imported'));
    expect(existsSync(archived)).toBe(false);
  });
});

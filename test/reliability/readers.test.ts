/**
 * Issue 10 items 2 and 4 (I10, I6, I8): readers never take the writer lock, never repair, and a hook that
 * cannot record leaves a visible mark.
 *  - `status` and a diff to the files now answer while another writer holds the lock, and leave the shared
 *    index and the warm-snapshot state alone (the diff snapshots into a private index);
 *  - a reader that meets damage reports it and leaves it to the next writer (no quarantine, nothing marked
 *    unavailable by a read);
 *  - a hook that times out on the lock lists a missed checkpoint that `status`, `log` and the timeline show;
 *  - a git lock file a killed git child left no longer stops every later checkpoint.
 */
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/main/engine/lock';
import { resolveWorkspace } from '../../src/main/engine/workspace';
import { WorkspaceEngine } from '../../src/main/engine/workspaceEngine';
import { handleHook } from '../../src/main/integrations/claude-code/hook';
import { createService } from '../../src/main/service';
import { blobId, cleanupTempDirs, cliJson, makeWorkspace, runCli, shadowDir, tempHome } from '../helpers/index';

afterAll(cleanupTempDirs);

const SESSION = '5f0c1a2b-3c4d-4e5f-8a7b-9c0d1e2f3a4b';

async function setup(spec: Record<string, string> = { 'a.txt': 'one\n', 'b.txt': 'bee\n' }) {
  const root = makeWorkspace(spec);
  const home = tempHome();
  const ws = await resolveWorkspace(root, { dataHome: home });
  const engine = new WorkspaceEngine(ws, { actor: 'test', lockWaitMs: 300 });
  const first = await engine.checkpoint({ session: 's', text: 'c1' });
  return { root, home, ws, engine, first };
}

describe('readers never take the writer lock (I10)', () => {
  it('a same-size edit made in the second of the last checkpoint still shows in a later diff to the files now', async () => {
    // git only re-reads a file whose stat matches when it is not older than the index ("racily clean"): the
    // private index copy must keep the shared index's mtime, or such an edit looks unchanged.
    let tried = 0;
    for (;;) {
      tried++;
      const { root, ws, engine, first } = await setup();
      const indexMtime = Math.floor(statSync(join(ws.dir, 'shadow.git', 'index')).mtimeMs / 1000);
      writeFileSync(join(root, 'a.txt'), 'two\n'); // same size as 'one\n'
      const sameSecond = Math.floor(statSync(join(root, 'a.txt')).ctimeMs / 1000) === indexMtime;
      if (!sameSecond && tried < 10) continue; // the case needs the edit in the index's own second
      expect(sameSecond, 'could not make the edit in the index second in 10 tries').toBe(true);
      await new Promise((r) => setTimeout(r, 1100)); // the diff comes a second later
      const changes = await engine.diff(first.hash, 'working');
      expect(changes.map((c) => `${c.status} ${c.path}`)).toEqual(['modified a.txt']);
      return;
    }
  });

  it('status and a diff to the files now answer while another writer holds the lock', async () => {
    const { root, ws, engine, first } = await setup();
    writeFileSync(join(root, 'a.txt'), 'two\n');
    writeFileSync(join(root, 'new.txt'), 'new\n');
    const gitDir = join(ws.dir, 'shadow.git');
    const index = readFileSync(join(gitDir, 'index'));
    const scan = readFileSync(join(gitDir, 'retrace-scan.json'));
    const lock = await acquireLock(ws, { command: 'a busy writer' });
    try {
      const t0 = Date.now();
      const status = await engine.status();
      const changes = await engine.diff(first.hash, 'working');
      expect(Date.now() - t0, 'no wait for the lock').toBeLessThan(5_000);
      expect(status.checkpoints).toBe(1);
      expect(status.storageBytes).toBeGreaterThan(0);
      expect(changes.map((c) => `${c.status} ${c.path}`).sort()).toEqual(['added new.txt', 'modified a.txt']);
      // The writer's index and warm-scan state are untouched, and no private index is left behind.
      expect(readFileSync(join(gitDir, 'index')).equals(index)).toBe(true);
      expect(readFileSync(join(gitDir, 'retrace-scan.json')).equals(scan)).toBe(true);
    } finally {
      await lock.release();
    }
    expect(existsSync(join(ws.dir, 'readers')) ? readdirSync(join(ws.dir, 'readers')) : []).toEqual([]);
    // The writer's next checkpoint sees the same changes.
    const next = await engine.checkpoint({ session: 's', text: 'c2' });
    expect(next.changed).toEqual({ added: 1, modified: 1, deleted: 0 });
  });

  it('a reader that meets damage reports it and never repairs; the next writer does', async () => {
    const { root, ws, engine } = await setup({ 'a.txt': 'one\n' });
    const gone = 'only in the second checkpoint\n';
    writeFileSync(join(root, 'a.txt'), gone);
    const c2 = await engine.checkpoint({ session: 's', text: 'c2' });
    writeFileSync(join(root, 'a.txt'), 'three\n');
    const gitDir = join(ws.dir, 'shadow.git');
    const id = blobId(Buffer.from(gone));
    truncateSync(join(gitDir, 'objects', id.slice(0, 2), id.slice(2)), 10);

    const reader = new WorkspaceEngine(ws, { actor: 'reader', lockWaitMs: 300 });
    const lock = await acquireLock(ws, { command: 'a busy writer' });
    try {
      const err = await reader.fileContents(null, c2.hash!, 'a.txt').catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('E_CORRUPT');
      expect(existsSync(join(ws.dir, 'damaged')), 'a reader moved nothing aside').toBe(false);
      expect(existsSync(join(ws.dir, 'unavailable.json')), 'a reader marked nothing unavailable').toBe(false);
      // status while the writer is busy: nothing repaired, no wait.
      expect((await reader.status()).recovered.filter((r) => r.kind === 'repository-repaired')).toEqual([]);
    } finally {
      await lock.release();
    }
    // Free again: status hands the repair to a writer (a try-lock) and reports it.
    const status = await reader.status();
    expect(status.recovered.map((r) => `${r.kind}: ${r.detail}`).join('\n')).toMatch(/repository-repaired/);
    expect(status.pendingRepairs).toBeUndefined();
  });

  it('a hook that times out on the lock lists a missed checkpoint: status, log and the timeline show it', async () => {
    const { root, home, ws } = await setup();
    const payload = {
      hook_event_name: 'PostToolUse',
      session_id: SESSION,
      cwd: root,
      tool_name: 'Edit',
      tool_input: { file_path: join(root, 'a.txt'), old_string: 'one', new_string: 'two' },
    };
    await handleHook(payload, { dataHome: home, env: {} }); // the session exists: one checkpoint
    writeFileSync(join(root, 'a.txt'), 'two\n');
    const lock = await acquireLock(ws, { command: 'a busy writer' });
    let err: unknown;
    try {
      err = await handleHook(payload, { dataHome: home, env: {} }).catch((e: unknown) => e);
    } finally {
      await lock.release();
    }
    expect((err as { code?: string }).code).toBe('E_LOCKED');
    const o = { home, cwd: root };
    const status = await cliJson<{ missed?: { session: string; reason: string; tool: string }[] }>(['status'], o);
    expect(status.missed).toHaveLength(1);
    expect(status.missed![0]).toMatchObject({ session: SESSION, tool: 'PostToolUse Edit' });
    expect(status.missed![0]!.reason).toMatch(/^E_LOCKED: workspace is locked by pid \d+ \(a busy writer\)/);
    const log = await cliJson<{ missed?: unknown[]; messages: unknown[] }>(['log', '--session', SESSION], o);
    expect(log.messages).toHaveLength(1);
    expect(log.missed).toHaveLength(1);
    const text = await runCli(['log', '--session', SESSION], o);
    expect(text.stdout).toMatch(/\(missed\) .* checkpoint not recorded \(PostToolUse Edit\): E_LOCKED/);
    const service = createService({ host: 'serve', dataHome: home, watch: false });
    try {
      const opened = await service.dispatch('openWorkspace', { path: root });
      if (!opened.ok) throw new Error(opened.error.message);
      const page = await service.dispatch('timeline', { workspace: opened.value.id, session: SESSION });
      if (!page.ok) throw new Error(page.error.message);
      expect(page.value.missed).toHaveLength(1);
    } finally {
      await service.close();
    }
  }, 30_000);

  it('a git lock file left by a killed git child no longer stops every later checkpoint (item 4)', async () => {
    const root = makeWorkspace({ 'a.txt': 'one\n' });
    const home = tempHome();
    const o = { home, cwd: root };
    await cliJson(['checkpoint', '--session', 's'], o);
    // What `git update-index` killed by the OOM killer leaves; its writer went on and released the lock.
    const leftover = join(shadowDir(home, root), 'index.lock');
    writeFileSync(leftover, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(leftover, old, old);
    writeFileSync(join(root, 'a.txt'), 'two\n');
    const r = await runCli(['checkpoint', '--session', 's', '--json'], o);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(leftover)).toBe(false);
    const st = await cliJson<{ recovered: { kind: string; detail: string }[] }>(['status'], o);
    expect(st.recovered.map((x) => `${x.kind}: ${x.detail}`).join('\n')).toMatch(
      /git-lock-removed: removed index\.lock/,
    );
  });
});

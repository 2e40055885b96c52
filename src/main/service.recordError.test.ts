/**
 * "Record changes" that cannot record: a real full disk under the data folder (a small tmpfs, which needs root)
 * makes the watcher's checkpoint fail. Every window hears why, with its code (folder-settings events and
 * folderSettings), until a later settle records again — and that checkpoint holds what the failed one missed.
 * A folder deleted while it records turns it off, saying why.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, type TestContext } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempDir } from '../../test/helpers';
import { fillUp, mountTmpfs, unmountTmpfs } from '../../test/helpers/fullDisk';
import type { ApiMethod, ApiResults } from '../shared/contract';
import type { FolderSettings, RetraceEvent } from '../shared/model';
import { createService, type RetraceService } from './service';

afterAll(cleanupTempDirs);

async function call<M extends ApiMethod>(service: RetraceService, method: M, args: unknown): Promise<ApiResults[M]> {
  const r = await service.dispatch(method, args);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

/**
 * Processes still standing in `dir` once those told to stop have had a second to go (an idle resident process
 * would stand for 30 s).
 */
async function processesLeftIn(dir: string): Promise<string[]> {
  let left = processesIn(dir);
  for (let i = 0; i < 20 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
    left = processesIn(dir);
  }
  return left;
}

/** Processes whose working folder lies in `dir` (Linux /proc). */
function processesIn(dir: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`))
        out.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 3).join(' ')}`);
    } catch {
      // gone meanwhile, or not ours to look at
    }
  }
  return out;
}

/** `root` opened with "Record changes" switched on, and every folder-settings event the windows get from then. */
async function recording(
  service: RetraceService,
  root: string,
): Promise<{ workspace: string; settingsSeen: FolderSettings[] }> {
  const settingsSeen: FolderSettings[] = [];
  service.subscribe((e: RetraceEvent) => {
    if (e.type === 'folder-settings') settingsSeen.push(e.settings);
  });
  const { id: workspace } = await call(service, 'openWorkspace', { path: root });
  await call(service, 'setFolderSettings', { workspace, recordChanges: true });
  return { workspace, settingsSeen };
}

/** A data home on a small disk of its own; the test is skipped, saying why, where none can be mounted. */
function smallDiskHome(ctx: TestContext): string {
  const home = tempDir('retrace-tmpfs-home-');
  const why = mountTmpfs(home);
  if (why) ctx.skip(why);
  return home;
}

describe('service: Record changes on a full disk', () => {
  it('says why it did not record, with the code, then records the missed change once there is room', async (ctx) => {
    const home = smallDiskHome(ctx);
    const root = makeWorkspace({ 'app.txt': 'v1\n' });
    const service = createService({ host: 'serve', dataHome: home, recordQuietMs: 200 });
    let left: string[] = [];
    try {
      const { workspace, settingsSeen } = await recording(service, root);
      fillUp(join(home, 'filler.bin'));
      writeFileSync(join(root, 'data.bin'), randomBytes(64 * 1024)); // incompressible: its blob needs room

      await expect.poll(() => settingsSeen.at(-1)?.recordError?.code, { timeout: 15_000 }).toBe('E_NO_SPACE');
      const failing = await call(service, 'folderSettings', { workspace });
      expect(failing).toMatchObject({ recordChanges: true, recordError: { code: 'E_NO_SPACE' } });
      expect(failing.recordError!.message).not.toBe('');
      const sessions = async () =>
        (await call(service, 'listSessions', { workspace })).filter((s) => s.agent === 'watch');
      expect((await sessions()).map((s) => s.checkpoints)).not.toContain(2);
      // Another edit, another settle that fails alike: the windows are not told again.
      writeFileSync(join(root, 'more.bin'), randomBytes(64 * 1024));
      await new Promise((r) => setTimeout(r, 1500));
      expect(settingsSeen.filter((x) => x.recordError)).toHaveLength(1);

      rmSync(join(home, 'filler.bin'));
      writeFileSync(join(root, 'app.txt'), 'v2\n');
      await expect
        .poll(() => settingsSeen.at(-1), { timeout: 15_000 })
        .toEqual({ alwaysImport: false, recordChanges: true });
      expect(await call(service, 'folderSettings', { workspace })).toEqual({
        alwaysImport: false,
        recordChanges: true,
      });
      // Nothing was lost: the baseline, then one checkpoint with both the missed file and the new edit.
      const [watch] = await sessions();
      const page = await call(service, 'timeline', { workspace, session: watch!.id });
      expect(page.messages.map((m) => m.text)).toEqual([
        'Before the first change (watching began)',
        'Files changed: app.txt, data.bin, more.bin',
      ]);

      // Off: no error is reported for a recorder that no longer runs.
      await call(service, 'setFolderSettings', { workspace, recordChanges: false });
      expect(await call(service, 'folderSettings', { workspace })).toEqual({
        alwaysImport: false,
        recordChanges: false,
      });
    } finally {
      await service.close();
      left = await processesLeftIn(home);
      await unmountTmpfs(home);
    }
    // Closed, it leaves no git process standing in the data folder (one would keep a removable disk busy).
    expect(left, left.join('\n')).toEqual([]);
  });

  it('left on and opened on a full disk: it says why it could not start, until switched on again', async (ctx) => {
    const home = smallDiskHome(ctx);
    const root = makeWorkspace({ 'app.txt': 'v1\n' });
    try {
      const before = createService({ host: 'serve', dataHome: home, recordQuietMs: 200 });
      const { id: workspace } = await call(before, 'openWorkspace', { path: root });
      await call(before, 'setFolderSettings', { workspace, recordChanges: true });
      await before.close();

      fillUp(join(home, 'filler.bin'));
      const service = createService({ host: 'serve', dataHome: home, recordQuietMs: 200 });
      try {
        await call(service, 'openWorkspace', { path: root }); // the folder opens; recording cannot start
        const off = await call(service, 'folderSettings', { workspace });
        expect(off).toMatchObject({ recordChanges: false, recordError: { code: 'E_NO_SPACE' } });
        rmSync(join(home, 'filler.bin'));
        await call(service, 'setFolderSettings', { workspace, recordChanges: true });
        expect(await call(service, 'folderSettings', { workspace })).toEqual({
          alwaysImport: false,
          recordChanges: true,
        });
      } finally {
        await service.close();
      }
    } finally {
      await unmountTmpfs(home);
    }
  });
});

describe('service: Record changes when its folder goes', () => {
  it('deleted while recording: off with E_NOT_FOUND, nothing left running; made again and switched on, it records', async () => {
    const home = tempDir('retrace-home-');
    const root = makeWorkspace({ 'app.txt': 'v1\n' });
    const service = createService({ host: 'serve', dataHome: home, recordQuietMs: 200 });
    try {
      const { workspace, settingsSeen } = await recording(service, root);
      rmSync(root, { recursive: true });

      await expect.poll(() => settingsSeen.at(-1)?.recordError?.code, { timeout: 15_000 }).toBe('E_NOT_FOUND');
      const ended = await call(service, 'folderSettings', { workspace });
      expect(ended).toMatchObject({ recordChanges: false, recordError: { code: 'E_NOT_FOUND' } });
      expect(ended.recordError!.message).toContain('was deleted or replaced while it was watched');
      // The ended watcher's resident git processes were closed with it, not left to their idle timeout.
      expect(await processesLeftIn(home)).toEqual([]);

      mkdirSync(root);
      writeFileSync(join(root, 'app.txt'), 'v2\n');
      await call(service, 'setFolderSettings', { workspace, recordChanges: true });
      expect(await call(service, 'folderSettings', { workspace })).toEqual({
        alwaysImport: false,
        recordChanges: true,
      });
      writeFileSync(join(root, 'app.txt'), 'v3\n');
      const watched = async () =>
        (await call(service, 'listSessions', { workspace })).find((s) => s.agent === 'watch')?.checkpoints ?? 0;
      await expect.poll(watched, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    } finally {
      await service.close();
    }
  });
});

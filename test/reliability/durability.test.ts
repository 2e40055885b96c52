/**
 * Issue 10 item 11, the objects half: the objects and refs a session log line names are on disk before the
 * line is (git's default core.fsync syncs neither loose objects nor refs, and the warm snapshot writes loose
 * objects by hand). Proven from the system calls themselves: the CLI runs under strace, and the order of the
 * syncs is read from its trace. What strace cannot show — that the disk honours the flush — is not tested.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shadowConfig } from '../../src/main/engine/git/runner';
import { MAX_PATHS } from '../../src/main/engine/shadow/scanEdit';
import { CLI_BIN, cleanupTempDirs, cliEnv, cliJson, makeWorkspace, tempDir, tempHome } from '../helpers/index';

afterAll(cleanupTempDirs);

const hasStrace = spawnSync('strace', ['-V']).status === 0;

/**
 * Run the CLI under strace; the sync-related calls it and its children made, paths resolved (-y), in order.
 * `creates`: also the files it creates (openat with O_CREAT), to see that a syncfs came after a write. Not the calls
 * of the upkeep a checkpoint starts now and then (one in 50, a detached `retrace maintenance`: maintenance.ts), which
 * strace follows too: its packing syncs objects after the log line, and made these tests fail by chance.
 */
function traced(
  args: string[],
  o: { home: string; cwd: string; input?: string; env?: Record<string, string>; creates?: boolean },
): string[] {
  const out = join(tempDir('retrace-strace-'), 'trace');
  const r = spawnSync(
    'strace',
    [
      '-f',
      '-qq',
      '-y',
      '-o',
      out,
      '-e',
      `trace=fsync,fdatasync,sync_file_range,syncfs,rename,renameat,renameat2,link,linkat,${PROCESS_CALLS}${o.creates ? ',openat' : ''}`,
      process.execPath,
      CLI_BIN,
      ...args,
    ],
    { cwd: o.cwd, env: cliEnv({ home: o.home, env: { RETRACE_HOOK_SERVER: '0', ...o.env } }), input: o.input ?? '' },
  );
  if (r.status !== 0) throw new Error(`retrace ${args.join(' ')} failed: ${r.stderr.toString()}`);
  return withoutUpkeep(readFileSync(out, 'utf8').split('\n')).filter(
    (l) => /fsync|sync_file_range|syncfs|rename|link|O_CREAT/.test(l) && !l.includes('node_modules'),
  );
}

/** The calls that say which process started which, and what it runs: read by withoutUpkeep, then left out. */
const PROCESS_CALLS = 'execve,clone,clone3,fork,vfork';

/** strace -f lines (each starts with its process id) of every process but a `retrace maintenance` and its children. */
function withoutUpkeep(lines: string[]): string[] {
  const pidOf = (l: string): string | undefined => /^(\d+)\s/.exec(l)?.[1];
  const parent = new Map<string, string>();
  const upkeep = new Set<string>();
  for (const l of lines) {
    const pid = pidOf(l);
    if (!pid) continue;
    const child = /(?:^\d+\s+(?:clone3?|vfork|fork)\(|<\.\.\. (?:clone3?|vfork|fork) resumed>).*= (\d+)$/.exec(l)?.[1];
    if (child) parent.set(child, pid);
    if (/^\d+\s+execve\(.*"maintenance"/.test(l)) upkeep.add(pid);
  }
  const inUpkeep = (pid: string): boolean => {
    for (let p: string | undefined = pid; p !== undefined; p = parent.get(p)) if (upkeep.has(p)) return true;
    return false;
  };
  const processCall = new RegExp(`^\\d+\\s+(?:<\\.\\.\\. )?(?:${PROCESS_CALLS.replace(/,/g, '|')})\\b`);
  return lines.filter((l) => {
    const pid = pidOf(l);
    return pid !== undefined && !inUpkeep(pid) && !processCall.test(l);
  });
}

/** Whether `sync -f` (one syncfs of a file system) works here: then a checkpoint syncs that way (syncFs.ts). */
const hasSyncfs = process.platform === 'linux' && spawnSync('sync', ['-f', '/']).status === 0;

/**
 * The two ways a checkpoint makes what it wrote durable before its log line: one syncfs of the file system
 * (Linux), or each file and folder synced as it is written (elsewhere; RETRACE_SYNCFS=0 makes Linux do that).
 */
const SYNC_MODES = [
  { mode: 'syncfs', env: {}, skip: !hasStrace || !hasSyncfs },
  { mode: 'per-file', env: { RETRACE_SYNCFS: '0' }, skip: !hasStrace },
] as const;

/**
 * The syncfs path: every object put in place under shadow.git/objects (git links its objects from a temp file,
 * the commit is renamed into place) and the journal are in place before the last syncfs that precedes the log
 * line's fsync, and that syncfs returned before it. Same guarantee as a sync per file, in one call.
 */
function expectOneSyncfsBefore(calls: string[], logSync: number): void {
  const placed = (l: string): boolean =>
    /(rename|link)[a-z]*\(.*\/shadow\.git\/objects\/[0-9a-f]{2}\/[0-9a-f]{38}/.test(l) ||
    /rename[a-z]*\(.*journal\.json/.test(l);
  const before = calls.slice(0, logSync);
  const syncfs = lastIndex(before, /syncfs\(/);
  expect(syncfs, calls.join('\n')).toBeGreaterThanOrEqual(0);
  expect(syncDone(calls, syncfs), 'the syncfs returned before the log line').toBeLessThan(logSync);
  const placements = calls.flatMap((l, i) => (placed(l) ? [i] : []));
  expect(placements.length, 'objects and the journal are put in place').toBeGreaterThanOrEqual(2);
  for (const i of placements) expect(i, `${calls[i]} before the syncfs`).toBeLessThan(syncfs);
  expect(
    calls.slice(syncfs + 1, logSync).filter(placed),
    'nothing is put in place between the syncfs and the log line',
  ).toEqual([]);
}

/**
 * Where the fsync (or syncfs) started at line `start` returned: that line, or the "<... fsync resumed>" line of the same
 * process when another thread's call came in between (strace -f splits it then). -1 when there is none.
 */
function syncDone(lines: string[], start: number): number {
  if (start < 0 || !lines[start]!.includes('<unfinished ...>')) return start;
  const pid = lines[start]!.split(' ')[0];
  return lines.findIndex((l, i) => i > start && l.startsWith(`${pid} `) && /<\.\.\. (fsync|syncfs) resumed>/.test(l));
}

/**
 * Objects written by hand (treeEdit.ts's blobs and trees, synced together by their names once written; the
 * commit, synced as tmp_obj_<12 hex> before its rename — git names its own with 6 letters) and the journal: each
 * object's file is synced, then its folder, all before the log line that names them, in one round (a warm hook
 * call, a full scan that edits the index's tree).
 */
function expectHandSyncedBefore(calls: string[], logSync: number): void {
  // Either way (syncfs or not): by name in one round, measured faster than one syncfs under load, which also
  // flushes everyone else's writes (record.ts: gitUnsynced only when git wrote them).
  const handFile =
    /fsync\(\d+<[^>]*\/shadow\.git\/objects\/([0-9a-f]{2})\/(?:tmp_obj_[0-9a-f]{12}|[0-9a-f]{38})>(?:\)| <unfinished)/;
  const synced = calls.flatMap((c, i) => {
    const m = handFile.exec(c);
    return m ? [{ i, dir: m[1]! }] : [];
  });
  // strace splits a call that overlaps another thread's: `fsync(N<path> <unfinished ...>`.
  expect(synced.length, calls.filter((c) => c.includes('fsync')).join('\n')).toBeGreaterThanOrEqual(4);
  for (const { i, dir } of synced) {
    expect(i).toBeLessThan(logSync);
    const folder = calls.findIndex(
      (c, j) => j > i && new RegExp(`fsync\\(\\d+<[^>]*/shadow\\.git/objects/${dir}>(?:\\)| <unfinished)`).test(c),
    );
    expect(folder, `the folder objects/${dir} is synced after its object`).toBeGreaterThan(i);
    expect(folder).toBeLessThan(logSync);
  }
  // The journal is made durable in the same round as the objects (issue 15), still before the log line.
  const journalSync = firstIndex(calls, /fsync\(\d+<[^>]*\/journal\.json\.\d+\.tmp>(?:\)| <unfinished)/);
  expect(journalSync, calls.join('\n')).toBeGreaterThanOrEqual(0);
  expect(journalSync).toBeLessThan(logSync);
}

const lastIndex = (lines: string[], re: RegExp): number => lines.map((l) => re.test(l)).lastIndexOf(true);
const firstIndex = (lines: string[], re: RegExp): number => lines.findIndex((l) => re.test(l));

describe('durability order: objects and refs before the log line (issue 10 item 11)', () => {
  it('the shadow config asks git to sync objects, refs and the index, and this git accepts it', () => {
    const cfg = shadowConfig('/nonexistent');
    expect(cfg).toContain('core.fsync=objects,reference,index');
    expect(cfg).toContain('core.fsyncMethod=batch');
    const r = spawnSync('git', [...cfg.flatMap((c) => ['-c', c]), 'var', 'GIT_COMMITTER_IDENT'], { encoding: 'utf8' });
    expect(r.stderr, 'no "unknown core.fsync component" warning').toBe('');
  });

  it.for(SYNC_MODES)('a checkpoint syncs its objects before the log line, then its ref ($mode)', async (m, ctx) => {
    if (m.skip) ctx.skip('skipped: strace (or, for syncfs, `sync -f`) is not available here');
    const root = makeWorkspace({ 'a.txt': 'one\n', 'src/b.txt': 'bee\n' });
    const home = tempHome();
    await cliJson(['checkpoint', '--session', 's'], { home, cwd: root });
    writeFileSync(join(root, 'a.txt'), 'two\n');
    // More changes than a full scan edits into the index's tree (scanEdit.ts): git stages them and writes the tree.
    for (let i = 0; i <= MAX_PATHS; i++) writeFileSync(join(root, `src/c${i}.txt`), `new ${i}\n`);
    const calls = traced(['checkpoint', '--session', 's'], { home, cwd: root, env: m.env });
    const logSync = firstIndex(calls, /fsync\(\d+<[^>]*\/sessions\/s\.jsonl>\)/);
    expect(logSync, calls.join('\n')).toBeGreaterThan(0);
    if (m.mode === 'syncfs') {
      // Blobs (update-index), trees (write-tree), the commit and the journal, unsynced, then one syncfs.
      expectOneSyncfsBefore(calls, logSync);
    } else {
      // Blobs (update-index: batch) and trees and the commit: every object-writing sync precedes the log line.
      const objectSync = /(fsync|sync_file_range)\(\d+<[^>]*\/shadow\.git\/objects\/[^>]*>/;
      expect(firstIndex(calls, objectSync), 'objects are synced at all').toBeGreaterThanOrEqual(0);
      expect(lastIndex(calls, objectSync)).toBeLessThan(logSync);
      expect(lastIndex(calls, /fsync\(\d+<[^>]*bulk_fsync_[^>]*>\)/)).toBeLessThan(logSync);
      expect(firstIndex(calls, /syncfs\(/), 'no syncfs on this path').toBe(-1);
    }
    // The ref that names the checkpoint is synced too, after the line (publish: commit → log line → ref).
    expect(firstIndex(calls, /fsync\(\d+<[^>]*refs\/retrace\/sessions\/s\.lock>\)/)).toBeGreaterThan(logSync);
  });

  it.for(SYNC_MODES)(
    'a checkpoint whose full scan finds few changes makes the objects it writes by hand durable first ($mode)',
    async (m, ctx) => {
      if (m.skip) ctx.skip('skipped: strace (or, for syncfs, `sync -f`) is not available here');
      const root = makeWorkspace({ 'a.txt': 'one\n', 'src/b.txt': 'bee\n' });
      const home = tempHome();
      await cliJson(['checkpoint', '--session', 's'], { home, cwd: root });
      writeFileSync(join(root, 'a.txt'), 'two\n');
      writeFileSync(join(root, 'src/c.txt'), 'new\n');
      const calls = traced(['checkpoint', '--session', 's'], { home, cwd: root, env: m.env });
      const logSync = firstIndex(calls, /fsync\(\d+<[^>]*\/sessions\/s\.jsonl>\)/);
      expect(logSync, calls.join('\n')).toBeGreaterThan(0);
      // Where one syncfs is trusted it covers the objects written by hand too (as git's own); else each by name.
      if (m.mode === 'syncfs') expectOneSyncfsBefore(calls, logSync);
      else expectHandSyncedBefore(calls, logSync);
      // Git neither staged nor wrote a tree: the shadow index was not rewritten (git renames index.lock over it).
      expect(firstIndex(calls, /rename[a-z0-9]*\(.*shadow\.git\/index\.lock/), 'the index untouched').toBe(-1);
    },
  );

  it.for(SYNC_MODES)(
    'a warm (hinted) hook checkpoint syncs the loose objects it writes by hand, and their folder ($mode)',
    async (m, ctx) => {
      if (m.skip) ctx.skip('skipped: strace (or, for syncfs, `sync -f`) is not available here');
      const root = makeWorkspace({ 'a.txt': 'one\n', 'src/b.txt': 'bee\n' });
      const home = tempHome();
      const session = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
      const hook = (file: string) =>
        JSON.stringify({
          hook_event_name: 'PostToolUse',
          session_id: session,
          cwd: root,
          tool_name: 'Edit',
          tool_input: { file_path: join(root, file), old_string: 'x', new_string: 'y' },
        });
      const env = cliEnv({ home, env: { RETRACE_HOOK_SERVER: '0', ...m.env } });
      execFileSync(process.execPath, [CLI_BIN, 'hook', 'claude-code'], { cwd: root, env, input: hook('a.txt') });
      writeFileSync(join(root, 'src/b.txt'), 'changed by the agent\n');
      const calls = traced(['hook', 'claude-code'], { home, cwd: root, input: hook('src/b.txt'), env: m.env });
      const logSync = firstIndex(calls, new RegExp(`fsync\\(\\d+<[^>]*/sessions/${session}\\.jsonl>\\)`));
      expect(logSync, calls.join('\n')).toBeGreaterThan(0);
      expectHandSyncedBefore(calls, logSync);
    },
  );
});

describe('durability order: a restore (I11, the restore half)', () => {
  /**
   * Each file it writes is on disk before it is renamed into place, and the renames before the ledger line says
   * done. Either sync does it: the file's own fsync, or a syncfs(2) of the folder's file system (syncFs.ts, where
   * the file system is trusted to honour it) that starts after the file was written — the same guarantee, as
   * syncfs writes out every file of that file system. Likewise for the folders: their own fsync, or a syncfs of
   * their file system after the last rename.
   */
  it.skipIf(!hasStrace).each([
    { how: 'one syncfs where the file system honours it', env: {} as Record<string, string> },
    { how: 'each file and folder on its own (RETRACE_SYNCFS=0)', env: { RETRACE_SYNCFS: '0' } },
  ])(
    'every file it writes is synced before it is renamed into place, and its folders before the ledger line: $how',
    async ({ env }) => {
      const files: Record<string, string> = {};
      for (let i = 0; i < 70; i++) files[`d${i % 3}/f${i}.txt`] = `v1 ${i}\n`; // more than 64 files (a sync group)
      const root = makeWorkspace(files);
      const home = tempHome();
      const first = (await cliJson(['checkpoint', '--session', 's'], { home, cwd: root })) as { hash: string };
      for (const rel of Object.keys(files)) writeFileSync(join(root, rel), `v2 ${rel}\n`);
      await cliJson(['checkpoint', '--session', 's'], { home, cwd: root });
      const calls = traced(['restore', first.hash, '--code'], { home, cwd: root, creates: true, env });
      const ledger = lastIndex(calls, /fsync\(\d+<[^>]*\/ledger\.jsonl>\)/);
      expect(ledger, calls.join('\n')).toBeGreaterThan(0);
      const rootSyncfs = new RegExp(`syncfs\\(\\d+<${root}[/>]`);
      /** Where each syncfs of the work tree's file system started and returned. */
      const syncfsRuns = calls.flatMap((l, i) => (rootSyncfs.test(l) ? [{ start: i, done: syncDone(calls, i) }] : []));
      for (const rel of Object.keys(files)) {
        const name = rel.split('/')[1]!.replace('.', '\\.');
        const side = `\\.${name}\\.~rt-[^.>]+\\.new`;
        const created = firstIndex(calls, new RegExp(`openat\\(.*${side}.*O_CREAT`));
        const renamed = firstIndex(calls, new RegExp(`rename[^(]*\\(.*${side}.*${name}`));
        const fsynced = syncDone(calls, firstIndex(calls, new RegExp(`fsync\\(\\d+<[^>]*${side}>`)));
        const why = `${rel}: ${calls.filter((l) => l.includes(rel.split('/')[1]!) || rootSyncfs.test(l)).join('\n')}`;
        expect(created, why).toBeGreaterThanOrEqual(0);
        expect(renamed, why).toBeGreaterThan(created);
        const ownSync = fsynced > created && fsynced < renamed;
        const fsSync = syncfsRuns.some((r) => r.start > created && r.done >= r.start && r.done < renamed);
        expect(ownSync || fsSync, `${rel} synced after it was written and before its rename: ${why}`).toBe(true);
      }
      const lastRename = lastIndex(calls, /rename[^(]*\(.*\.~rt-[^.>]+\.new/);
      const fsSyncAfterRenames = syncfsRuns.some((r) => r.start > lastRename && r.done >= r.start && r.done < ledger);
      if (env.RETRACE_SYNCFS === '0') expect(syncfsRuns, 'no syncfs when it is turned off').toEqual([]);
      for (const dir of ['d0', 'd1', 'd2']) {
        const dirSync = syncDone(calls, lastIndex(calls, new RegExp(`fsync\\(\\d+<${root}/${dir}>`)));
        const ownSync = dirSync > lastRename && dirSync < ledger;
        expect(ownSync || fsSyncAfterRenames, `${dir} synced after the renames and before the ledger line`).toBe(true);
      }
    },
  );
});

describe('durability order: the safety checkpoint of a restore before its journal (I8, I9)', () => {
  /**
   * The safety commit and the modes file are written unsynced and made durable in the journal's own round
   * (transaction.ts): each is fsynced, then its folder, all before the journal is renamed into place; the journal's
   * folder is synced before the first file of the folder is created; the safety ref only once its commit is on disk.
   * A journal on disk must never name a safety commit a crash could still lose: its rollback would have nothing to
   * go back to.
   */
  it.skipIf(!hasStrace)(
    'commit and modes, with their folders, then the journal, then the folder and the ref',
    async () => {
      const root = makeWorkspace({ 'a.txt': 'one\n', 'src/b.txt': 'bee\n' });
      const home = tempHome();
      const first = (await cliJson(['checkpoint', '--session', 's'], { home, cwd: root })) as { hash: string };
      writeFileSync(join(root, 'a.txt'), 'two\n');
      await cliJson(['checkpoint', '--session', 's'], { home, cwd: root });
      const calls = traced(['restore', first.hash, '--code'], { home, cwd: root, creates: true });
      const all = calls.join('\n');
      const modes = /fsync\(\d+<([^>]*)\/restores\/([^/>]+)\.modes\.json>/.exec(all);
      expect(modes, all).not.toBeNull();
      const [, wsDir, rid] = modes!;
      const commit = readFileSync(join(wsDir!, 'shadow.git', 'refs', 'retrace', 'safety', rid!), 'utf8').trim();
      const objectDir = join(wsDir!, 'shadow.git', 'objects', commit.slice(0, 2));
      const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const synced = (p: string): number => syncDone(calls, firstIndex(calls, new RegExp(`fsync\\(\\d+<${esc(p)}>`)));
      const journalPlaced = firstIndex(calls, /rename[a-z0-9]*\(.*journal\.json\.\d+\.tmp.*journal\.json>?"?,?/);
      const journalFolder = syncDone(
        calls,
        calls.findIndex((l, i) => i > journalPlaced && new RegExp(`fsync\\(\\d+<${esc(wsDir!)}>`).test(l)),
      );
      const firstSideFile = firstIndex(calls, /openat\(.*\.~rt-[^.>]+\.new.*O_CREAT/);
      const refPlaced = firstIndex(calls, new RegExp(`rename[a-z0-9]*\\(.*refs/retrace/safety/${esc(rid!)}\\.lock`));
      expect(journalPlaced, all).toBeGreaterThan(0);
      for (const [what, at] of [
        ['the safety commit', synced(join(objectDir, commit.slice(2)))],
        ['its folder', synced(objectDir)],
        ['the modes file', synced(join(wsDir!, 'restores', `${rid!}.modes.json`))],
        ['the restores folder', synced(join(wsDir!, 'restores'))],
      ] as const) {
        expect(at, `${what} is synced: ${all}`).toBeGreaterThanOrEqual(0);
        expect(at, `${what} is on disk before the journal is renamed into place`).toBeLessThan(journalPlaced);
      }
      expect(journalFolder, 'the journal folder is synced after its rename').toBeGreaterThan(journalPlaced);
      expect(firstSideFile, 'the restore writes a file').toBeGreaterThan(0);
      expect(journalFolder, 'the journal is on disk before the folder is touched').toBeLessThan(firstSideFile);
      expect(refPlaced, 'the safety ref is moved after its commit is on disk').toBeGreaterThan(journalPlaced);
    },
  );
});

describe('durability order: a file the attic gives back (attic.ts, issue 15)', () => {
  /**
   * An undo renames in the very files its restore replaced and kept in the attic, instead of writing new ones. Their
   * content must be on disk before that rename, as a written file's is: either a syncfs of their file system came
   * after they were kept and before the restore's ledger line (the attic's manifest says so, and the undo renames
   * them in as they are), or the undo fsyncs each of them before its rename.
   */
  async function restoredTraced(env: Record<string, string>) {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`d${i % 3}/f${i}.txt`] = `v1 ${i}\n`;
    const root = makeWorkspace(files);
    const home = tempHome();
    const first = (await cliJson(['checkpoint', '--session', 's'], { home, cwd: root })) as { hash: string };
    for (const rel of Object.keys(files)) writeFileSync(join(root, rel), `v2 ${rel}\n`);
    await cliJson(['checkpoint', '--session', 's'], { home, cwd: root });
    const restore = traced(['restore', first.hash, '--code'], { home, cwd: root, env });
    const undo = traced(['undo'], { home, cwd: root, env });
    for (const rel of Object.keys(files)) expect(readFileSync(join(root, rel), 'utf8')).toBe(`v2 ${rel}\n`);
    /** Where each file went into the attic (restore) and came back from it (undo), by its name in the attic. */
    const keptAt = new Map<string, number>();
    const takenAt = new Map<string, number>();
    restore.forEach((l, i) => {
      const m = /rename[a-z0-9]*\(.*"([^"]*\/attic\/[^"/]+\/\d+)"/.exec(l);
      if (m) keptAt.set(m[1]!, i);
    });
    undo.forEach((l, i) => {
      const m = new RegExp(`rename[a-z0-9]*\\(.*"([^"]*/attic/[^"/]+/\\d+)", "${root}/`).exec(l);
      if (m) takenAt.set(m[1]!, i);
    });
    expect(keptAt.size, restore.join('\n')).toBe(12);
    expect([...takenAt.keys()].sort(), undo.join('\n')).toEqual([...keptAt.keys()].sort());
    return { restore, undo, keptAt, takenAt };
  }

  it.skipIf(!hasStrace || !hasSyncfs)(
    'kept, then a syncfs before the restore ends: the undo renames them in with no sync of their own',
    async () => {
      const { restore, undo, keptAt, takenAt } = await restoredTraced({});
      const ledger = lastIndex(restore, /fsync\(\d+<[^>]*\/ledger\.jsonl>\)/);
      // The work tree and the data folder are on one file system here (the attic keeps files only then).
      const anySyncfs = /syncfs\(/;
      const lastKept = Math.max(...keptAt.values());
      const covered = restore.some((l, i) => anySyncfs.test(l) && i > lastKept && syncDone(restore, i) < ledger);
      expect(covered, `a syncfs after the last file was kept, before the ledger line:\n${restore.join('\n')}`).toBe(
        true,
      );
      const firstTaken = Math.min(...takenAt.values());
      expect(
        undo
          .slice(0, firstTaken)
          .filter((l) => anySyncfs.test(l) || [...takenAt.keys()].some((k) => l.includes(`<${k}>`))),
        'nothing synced again before they are renamed in',
      ).toEqual([]);
    },
  );

  it.skipIf(!hasStrace)(
    'kept where folders are synced one by one (RETRACE_SYNCFS=0): the undo fsyncs each before its rename',
    async () => {
      const { undo, takenAt } = await restoredTraced({ RETRACE_SYNCFS: '0' });
      for (const [kept, at] of takenAt) {
        const synced = syncDone(undo, firstIndex(undo, new RegExp(`fsync\\(\\d+<${kept}>`)));
        expect(synced, `${kept} synced before it is renamed into place:\n${undo.join('\n')}`).toBeGreaterThanOrEqual(0);
        expect(synced).toBeLessThan(at);
      }
    },
  );
});

/**
 * Issue 6 part 4 (I5, I8): a damaged shadow repository — an empty or truncated object, a missing HEAD, a broken
 * index, a half-written ref, a ref whose commit is gone, garbled packed-refs — is detected and repaired by the
 * next command, keeping every checkpoint that can be kept, with a clear report and never a crash loop.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blobId,
  cleanupTempDirs,
  cloneWorkspace,
  fsck,
  gitAt,
  makeWorkspace,
  runCli,
  shadowDir,
  tempHome,
  type CliResult,
} from '../helpers/index';
import { treeVsFolder } from './scenario';

afterAll(cleanupTempDirs);

interface Base {
  ws: string;
  home: string;
  session: string;
  /** c1: the project; c2: src/index.ts = V2 (gone from disk later); c3: src/index.ts = V3 + src/c3.ts. */
  c: [string, string, string];
}

const V2 = 'export const answer = "only in checkpoint 2";\n';
const V3 = 'export const answer = "v3";\n';
const C3_NEW = 'export const c3 = "new in checkpoint 3";\n';

let base: Base;

beforeAll(async () => {
  const ws = makeWorkspace(undefined, { userGit: true });
  const home = tempHome();
  const run = async (args: string[]): Promise<Record<string, string>> => {
    const r = await runCli([...args, '--json'], { home, cwd: ws });
    if (r.code !== 0) throw new Error(r.stderr);
    return r.json as Record<string, string>;
  };
  const a = await run(['checkpoint', '--text', 'c1']);
  writeFileSync(join(ws, 'src/index.ts'), V2);
  const b = await run(['checkpoint', '--text', 'c2']);
  writeFileSync(join(ws, 'src/index.ts'), V3);
  writeFileSync(join(ws, 'src/c3.ts'), C3_NEW);
  const c = await run(['checkpoint', '--text', 'c3']);
  base = { ws, home, session: a.session!, c: [a.hash!, b.hash!, c.hash!] };
}, 60_000);

interface Case {
  ws: string;
  home: string;
  gitDir: string;
  run(args: string[]): Promise<CliResult>;
}

async function fresh(): Promise<Case> {
  const { ws, home } = await cloneWorkspace(base.ws, base.home);
  return {
    ws,
    home,
    gitDir: shadowDir(home, ws),
    run: (args) => runCli([...args, '--json'], { home, cwd: ws }),
  };
}

function looseObject(gitDir: string, id: string): string {
  const file = join(gitDir, 'objects', id.slice(0, 2), id.slice(2));
  if (!existsSync(file)) throw new Error(`object ${id} is not loose (packed?): the damage cannot be simulated`);
  return file;
}

type Report = { kind: string; detail: string };
const recoveredOf = (r: CliResult): Report[] => (r.json as { recovered?: Report[] } | undefined)?.recovered ?? [];
const messagesOf = (r: CliResult): { id: string; text: string; hash: string | null }[] =>
  (r.json as { messages: { id: string; text: string; hash: string | null }[] }).messages;

/**
 * The common promises after any damage: status repairs and says so; the repository is fsck-clean; every
 * message is still in the log; the next checkpoint works and captures the folder exactly; repeated commands
 * keep working and do not repair again (no crash loop).
 */
async function expectRepaired(c: Case, reportMatch: RegExp): Promise<Report[]> {
  const status = await c.run(['status']);
  expect(status.code, status.stderr).toBe(0);
  const reports = recoveredOf(status);
  expect(reports.map((r) => `${r.kind}: ${r.detail}`).join('\n')).toMatch(reportMatch);
  const f = fsck(c.gitDir);
  expect(f.ok, f.output).toBe(true);

  const log = await c.run(['log', '--all']);
  expect(log.code, log.stderr).toBe(0);
  expect(messagesOf(log).map((m) => m.text)).toEqual(['c1', 'c2', 'c3']);

  const next = await c.run(['checkpoint', '--text', 'after-repair']);
  expect(next.code, next.stderr).toBe(0);
  const hash = (next.json as { hash: string }).hash;
  expect(treeVsFolder(c.gitDir, hash, c.ws)).toEqual([]);

  for (let i = 0; i < 3; i++) {
    const again = await c.run(['status']);
    expect(again.code, again.stderr).toBe(0);
    expect(recoveredOf(again).length, 'a healthy repository is not repaired again').toBe(recoveredOf(status).length);
  }
  expect(fsck(c.gitDir).ok).toBe(true);
  return reports;
}

describe('shadow repository corruption (I5, I8)', () => {
  it('a healthy repository reports nothing and is left alone', async () => {
    const c = await fresh();
    const before = gitAt(c.gitDir, ['for-each-ref']);
    const s = await c.run(['status']);
    expect(s.code, s.stderr).toBe(0);
    expect(recoveredOf(s).filter((r) => r.kind === 'repository-repaired')).toEqual([]);
    expect(gitAt(c.gitDir, ['for-each-ref'])).toBe(before);
  });

  it('an empty object file whose content is still in the folder is rebuilt: nothing lost', async () => {
    const c = await fresh();
    truncateSync(looseObject(c.gitDir, blobId(Buffer.from(C3_NEW))), 0);
    await expectRepaired(c, /repository-repaired: .*rebuilt 1/);
    // Every checkpoint is whole again.
    for (const h of base.c) expect(gitAt(c.gitDir, ['rev-list', '--objects', h]).length).toBeGreaterThan(0);
    const d = await c.run(['diff', base.c[1], base.c[2]]);
    expect(d.code, d.stderr).toBe(0);
  });

  it('a truncated object whose content is gone: that checkpoint is unavailable, the others are kept', async () => {
    const c = await fresh();
    const file = looseObject(c.gitDir, blobId(Buffer.from(V2)));
    truncateSync(file, Math.floor(readFileSync(file).length / 2));
    const reports = await expectRepaired(c, /repository-repaired: .*could not be rebuilt/);
    expect(reports.map((r) => r.detail).join('\n')).toContain(base.c[1].slice(0, 7));
    // Checkpoint 1 is intact and restorable; checkpoint 3's files are kept too (salvaged if its history broke).
    // Checkpoint 3's own files are intact but its history is not: they stay reachable under a salvage ref.
    const salvaged = gitAt(c.gitDir, ['rev-parse', `refs/retrace/salvaged/${base.c[2]}^{tree}`]).trim();
    expect(salvaged).toBe(gitAt(c.gitDir, ['rev-parse', `${base.c[2]}^{tree}`]).trim());
    const r1 = await c.run(['restore', base.c[0], '--code']);
    expect(r1.code, r1.stderr).toBe(0);
    // …and stay restorable by its own name after gc has dropped the old commit with its broken history.
    execFileSync('git', [`--git-dir=${c.gitDir}`, 'gc', '--quiet', '--prune=now']);
    const r3 = await c.run(['restore', base.c[2], '--code']);
    expect(r3.code, r3.stderr).toBe(0);
    expect(readFileSync(join(c.ws, 'src/c3.ts'), 'utf8')).toBe(C3_NEW);
    expect(readFileSync(join(c.ws, 'src/index.ts'), 'utf8')).toBe(V3);
    // The damaged one fails with one clear line, not a crash.
    for (const args of [
      ['restore', base.c[1], '--code'],
      ['diff', base.c[0], base.c[1]],
    ]) {
      const r = await c.run(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(['E_UNKNOWN_CHECKPOINT', 'E_CORRUPT'], r.stderr).toContain(
        (r.json as { error: { code: string } }).error.code,
      );
    }
  });

  it('a missing HEAD is recreated and reported', async () => {
    const c = await fresh();
    rmSync(join(c.gitDir, 'HEAD'));
    await expectRepaired(c, /HEAD/);
  });

  it('a garbled config is replaced and reported', async () => {
    const c = await fresh();
    writeFileSync(join(c.gitDir, 'config'), '\u0000\u0001 not a config [[[\n');
    await expectRepaired(c, /config/);
  });

  it('a broken index is rebuilt from the newest intact checkpoint', async () => {
    const c = await fresh();
    const index = join(c.gitDir, 'index');
    const bytes = readFileSync(index);
    bytes.fill(0x5a, 40, 80);
    writeFileSync(index, bytes);
    await expectRepaired(c, /index/);
  });

  it('a lost shared index (core.splitIndex) is handled like a broken index', async () => {
    const c = await fresh();
    // Make sure the index links to a shared part, whatever git chose at this size.
    gitAt(c.gitDir, [`--work-tree=${c.ws}`, 'update-index', '--split-index']);
    const shared = readdirSync(c.gitDir).filter((f) => f.startsWith('sharedindex.'));
    expect(shared.length).toBeGreaterThan(0);
    for (const f of shared) rmSync(join(c.gitDir, f));
    await expectRepaired(c, /index/);
  });

  it('a half-written session ref is repaired to the last checkpoint of the session', async () => {
    const c = await fresh();
    writeFileSync(join(c.gitDir, 'refs/retrace/sessions', base.session), base.c[2].slice(0, 11));
    await expectRepaired(c, /ref/);
    // The session's chain is whole again: its ref reaches every checkpoint (and the one made after the repair).
    const reach = gitAt(c.gitDir, ['rev-list', `refs/retrace/sessions/${base.session}`]);
    for (const h of base.c) expect(reach).toContain(h);
  });

  it('a ref whose commit object is gone: moved to the newest intact checkpoint, messages kept', async () => {
    const c = await fresh();
    rmSync(looseObject(c.gitDir, base.c[2]));
    const reports = await expectRepaired(c, /checkpoint-ref-repaired: .*unavailable: .*/);
    expect(reports.map((r) => r.detail).join('\n')).toContain(base.c[2].slice(0, 7));
    const reach = gitAt(c.gitDir, ['rev-list', `refs/retrace/sessions/${base.session}`]);
    expect(reach).toContain(base.c[1]);
  });

  it('a repository that lost every object: messages kept, all checkpoints unavailable, recording goes on', async () => {
    const c = await fresh();
    rmSync(join(c.gitDir, 'objects'), { recursive: true, force: true });
    const reports = await expectRepaired(c, /recreated missing objects|unavailable/);
    for (const h of base.c.slice(0, 2)) expect(reports.map((r) => r.detail).join('\n')).toContain(h.slice(0, 7));
    const log = await c.run(['log']);
    const flagged = (
      log.json as { messages: { hash: string | null; meta?: { checkpointUnavailable?: boolean } }[] }
    ).messages
      .filter((m) => base.c.includes(m.hash ?? ''))
      .map((m) => m.meta?.checkpointUnavailable === true);
    expect(flagged).toEqual([true, true, true]);
  });

  it('garbled packed-refs lines are dropped and the refs rebuilt', async () => {
    const c = await fresh();
    execFileSync('git', [`--git-dir=${c.gitDir}`, 'pack-refs', '--all']);
    const packed = join(c.gitDir, 'packed-refs');
    writeFileSync(packed, readFileSync(packed, 'utf8').replace(base.c[2], base.c[2].slice(0, 20) + '\u0000garbage'));
    await expectRepaired(c, /packed-refs|ref/);
  });
});

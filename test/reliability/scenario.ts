/**
 * Crash scenarios for the fault-injection suite: a small workspace with the user's own git, two checkpoints
 * and uncheckpointed work on top, then one operation (checkpoint / restore / undo) that gets killed.
 * `verifyAfterCrash` checks everything I3, I6 and I8 promise about the state the next command finds.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  cliJson,
  cloneWorkspace,
  errorCode,
  fsck,
  gitAt,
  gitManifest,
  makeWorkspace,
  manifestDiff,
  manifestsEqual,
  reachableBlobs,
  runCli,
  shadowDir,
  spawnCli,
  tempHome,
  workspaceDataDir,
  treeManifest,
  type CliResult,
  type Manifest,
} from '../helpers/index';

export type OpKind = 'checkpoint' | 'message' | 'restore-code' | 'restore-both' | 'undo';

export interface Scenario {
  ws: string;
  home: string;
  session: string;
  h1: string;
  h2: string;
  op: OpKind;
  /** The workspace right before the operation. */
  before: Manifest;
  /** The user's .git right before the operation. */
  gitBefore: Manifest;
  /** Git blob id of every regular file before the operation (path → id): what must not be lost. */
  blobsBefore: Map<string, string>;
}

/** Paths that are never captured, so no restore may touch them (I3). */
export const EXCLUDED = ['.env', 'node_modules/dep/index.js', 'ignored-by-user.log'];

/** v1 → checkpoint h1 → v2 → checkpoint h2 → v3 (not checkpointed); for `undo`, then a restore to h1. */
export async function prepare(op: OpKind): Promise<Scenario> {
  const ws = makeWorkspace(undefined, { userGit: true });
  const home = tempHome();
  const o = { home, cwd: ws };
  const c1 = await cliJson<{ session: string; hash: string }>(['checkpoint', '--text', 'v1'], o);
  // v2: modify, add, delete, drop an exec bit, retarget a symlink, add an executable.
  writeFileSync(join(ws, 'src/index.ts'), 'export const answer = 43;\n');
  writeFileSync(join(ws, 'src/new.ts'), 'export const fresh = 1;\n');
  rmSync(join(ws, 'docs/crlf.txt'));
  chmodSync(join(ws, 'scripts/run.sh'), 0o644);
  rmSync(join(ws, 'link-to-readme'));
  symlinkSync('src/util.ts', join(ws, 'link-to-readme'));
  writeFileSync(join(ws, 'scripts/build.sh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const c2 = await cliJson<{ session: string; hash: string }>(['checkpoint', '--text', 'v2'], o);
  // v3: work never checkpointed, plus changes to excluded files that a restore must leave alone.
  writeFileSync(join(ws, 'src/util.ts'), 'export function add(a: number, b: number) {\n  return b + a;\n}\n');
  writeFileSync(join(ws, 'unsaved.md'), 'never checkpointed\r\n');
  writeFileSync(join(ws, '.env'), 'SECRET=2\n');
  writeFileSync(join(ws, 'node_modules/dep/index.js'), 'module.exports = 2;\n');
  if (op === 'undo') await cliJson(['restore', c1.hash, '--code'], o);
  return {
    ws,
    home,
    session: c1.session,
    h1: c1.hash,
    h2: c2.hash,
    op,
    before: treeManifest(ws),
    gitBefore: gitManifest(ws),
    blobsBefore: blobIds(ws),
  };
}

/**
 * A copy of a prepared scenario at a new path with its own data directory — same sessions, checkpoints and
 * shadow repository, without re-running the CLI. The copied shadow index carries the template's stat data, so
 * the first snapshot of the copy also proves that a stale index cache never yields a wrong tree.
 */
export async function cloneScenario(t: Scenario): Promise<Scenario> {
  const { ws, home } = await cloneWorkspace(t.ws, t.home);
  return { ...t, ws, home, before: treeManifest(ws), gitBefore: gitManifest(ws), blobsBefore: blobIds(ws) };
}

/** The CLI arguments of the operation under test. */
export function opArgs(s: Scenario, label: string): string[] {
  switch (s.op) {
    case 'checkpoint':
      return ['checkpoint', '--text', label, '--json'];
    case 'message':
      return ['message', '--role', 'assistant', '--text', label, '--checkpoint', '--json'];
    case 'restore-code':
      return ['restore', s.h1, '--code', '--json'];
    case 'restore-both':
      return ['restore', s.h1, '--both', '--json'];
    case 'undo':
      return ['undo', '--json'];
  }
}

/** The workspace after the operation completes, computed by running it unharmed on an identical scenario. */
export async function expectedAfter(template: Scenario): Promise<{ after: Manifest; ms: number }> {
  const s = { ...(await cloneScenario(template)), op: template.op };
  const r = await runCli(opArgs(s, 'control'), { home: s.home, cwd: s.ws });
  if (r.code !== 0) throw new Error(`control ${s.op} failed: ${r.stderr}`);
  return { after: treeManifest(s.ws), ms: r.ms };
}

/**
 * Run the operation and make sure the process is gone, with every git child it started, before returning:
 * the next command models "the user runs retrace again after the crash".
 */
export async function runKilled(
  s: Scenario,
  label: string,
  how: { fault: string } | { killAfterMs: number },
): Promise<CliResult> {
  const env: Record<string, string> = 'fault' in how ? { RETRACE_TEST_FAULTS: '1', RETRACE_FAULT: how.fault } : {};
  const { child, done } = spawnCli(opArgs(s, label), { home: s.home, cwd: s.ws, env, timeoutMs: 60_000 });
  let timer: NodeJS.Timeout | undefined;
  if ('killAfterMs' in how) timer = setTimeout(() => child.kill('SIGKILL'), how.killAfterMs);
  const r = await done;
  if (timer) clearTimeout(timer);
  await waitForOrphans(s);
  return r;
}

/** Wait until no git process works on this scenario's shadow repo (orphans of a killed CLI). */
async function waitForOrphans(s: Scenario): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout ?? '';
    if (!ps.split('\n').some((l) => l.includes(s.home))) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface Outcome {
  /** Which side of the operation the workspace ended on. */
  state: 'before' | 'after';
  recovered: { kind: string; detail: string }[];
  problems: string[];
}

/**
 * After a crash: the next command recovers by itself and reports it; the workspace is exactly before or
 * after; nothing that existed is lost; the user's .git is untouched; no stale lock delays the next writer;
 * the log and the shadow repository are consistent.
 */
export async function verifyAfterCrash(s: Scenario, after: Manifest | null): Promise<Outcome> {
  const problems: string[] = [];
  const o = { home: s.home, cwd: s.ws };
  const status = await runCli(['status', '--json'], o);
  const recovered = ((status.json as { recovered?: Outcome['recovered'] } | undefined)?.recovered ?? []).slice();
  if (status.code !== 0) problems.push(`status exited ${status.code}: ${status.stderr.trim()}`);

  const now = treeManifest(s.ws);
  let state: Outcome['state'] = 'before';
  if (manifestsEqual(now, s.before)) state = 'before';
  else if (after && manifestsEqual(now, after)) state = 'after';
  else
    problems.push(
      `workspace is neither before nor after: vs before ${manifestDiff(s.before, now).join('; ')}` +
        (after ? ` | vs after ${manifestDiff(after, now).join('; ')}` : ''),
    );

  const gitNow = gitManifest(s.ws);
  if (!manifestsEqual(gitNow, s.gitBefore))
    problems.push(`user .git changed: ${manifestDiff(s.gitBefore, gitNow).join('; ')}`);

  // No content lost: each file that existed is in the workspace or reachable from a ref (safety checkpoint).
  const gitDir = shadowDir(s.home, s.ws);
  const reachable = reachableBlobs(gitDir);
  const blobsNow = blobIds(s.ws);
  for (const [path, id] of s.blobsBefore) {
    if (blobsNow.get(path) === id) continue;
    if (EXCLUDED.includes(path)) problems.push(`excluded file ${path} was changed`);
    else if (!reachable.has(id)) problems.push(`content of ${path} (${id.slice(0, 8)}) is lost`);
  }

  // The next writer is not held up by a stale lock (well under the 10 s bounded wait), and its snapshot is right.
  const next = await runCli(['checkpoint', '--text', 'after-crash', '--json'], o);
  if (next.code !== 0) problems.push(`next checkpoint failed (${errorCode(next)}): ${next.stderr.trim()}`);
  else {
    if (next.ms > 8_000) problems.push(`next checkpoint took ${next.ms} ms (stale lock?)`);
    const hash = (next.json as { hash: string }).hash;
    const mismatch = treeVsFolder(gitDir, hash, s.ws);
    if (mismatch.length > 0) problems.push(`new checkpoint differs from the files: ${mismatch.join('; ')}`);
  }

  // The session log (read raw, so a duplicate append shows even if replay would hide it): no duplicate
  // message, every hash a commit of the shadow repository, the session ref at the last checkpoint.
  const msgs = sessionMessages(s);
  const ids = msgs.map((m) => m.id);
  if (new Set(ids).size !== ids.length) problems.push('duplicate message ids in the log');
  const hashes = msgs.map((m) => m.hash).filter((h): h is string => typeof h === 'string');
  if (new Set(hashes).size !== hashes.length) problems.push('two messages carry the same hash');
  if (hashes.length > 0) {
    const types = spawnSync('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch-check=%(objecttype)'], {
      input: hashes.join('\n') + '\n',
      encoding: 'utf8',
    }).stdout.split('\n');
    hashes.forEach((h, i) => {
      if (types[i] !== 'commit')
        problems.push(`message hash ${h} is not a commit of the shadow repository (${types[i]})`);
    });
  }
  const tip = gitAt(gitDir, ['for-each-ref', '--format=%(objectname)', `refs/retrace/sessions/${s.session}`]).trim();
  if (tip !== hashes.at(-1))
    problems.push(`session ref ${tip || '(none)'} is not the last checkpoint ${hashes.at(-1)}`);

  const f = fsck(gitDir);
  if (!f.ok) problems.push(`git fsck: ${f.output.trim().slice(0, 300)}`);

  // A restore that completed can be undone back to exactly the state before it (I3).
  if (state === 'after' && s.op !== 'checkpoint' && s.op !== 'message') {
    const u = await runCli(['undo', '--json'], o);
    if (u.code !== 0) problems.push(`undo of the completed ${s.op} failed: ${u.stderr.trim()}`);
    else {
      const back = treeManifest(s.ws);
      // The after-crash checkpoint changed nothing on disk, so undo must land on the state before.
      if (!manifestsEqual(back, s.before))
        problems.push(`undo did not return to before: ${manifestDiff(s.before, back).join('; ')}`);
    }
  }
  return { state, recovered, problems };
}

/** Every message event of the scenario's session log, in file order (torn lines skipped). */
function sessionMessages(s: Scenario): { id: string; hash?: string }[] {
  const file = join(workspaceDataDir(s.home, s.ws)!, 'sessions', `${s.session}.jsonl`);
  const out: { id: string; hash?: string }[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const ev = JSON.parse(line) as { type?: string; id: string; hash?: string };
      if (ev.type === 'message') out.push(ev);
    } catch {
      // a torn line: the engine skips it too
    }
  }
  return out;
}

/** path → git blob id of every regular file outside .git (computed in-process: sha1("blob N\0" + bytes)). */
export function blobIds(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === '.git') continue;
      const full = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(full);
      if (st.isDirectory()) walk(full, r);
      else if (st.isFile()) {
        const bytes = readFileSync(full);
        const h = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
        out.set(r, h);
      }
    }
  };
  walk(root, '');
  return out;
}

/**
 * Differences between a checkpoint's tree and the folder (every file not excluded): mode, blob id, symlink
 * target. Computed with git plumbing and in-process hashing, independent of the engine.
 */
export function treeVsFolder(gitDir: string, commit: string, root: string): string[] {
  const inTree = new Map<string, string>();
  for (const entry of gitAt(gitDir, ['ls-tree', '-r', '-z', commit]).split('\0')) {
    if (!entry) continue;
    const [meta, path] = entry.split('\t') as [string, string];
    const [mode, , id] = meta.split(' ');
    inTree.set(path, `${mode} ${id}`);
  }
  const onDisk = new Map<string, string>();
  const blob = (bytes: Buffer): string =>
    createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === '.git') continue;
      const full = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      if (EXCLUDED.includes(r) || r === 'node_modules') continue;
      const st = lstatSync(full);
      if (st.isDirectory()) walk(full, r);
      else if (st.isSymbolicLink()) onDisk.set(r, `120000 ${blob(readlinkSync(full, { encoding: 'buffer' }))}`);
      else if (st.isFile()) onDisk.set(r, `${st.mode & 0o111 ? '100755' : '100644'} ${blob(readFileSync(full))}`);
    }
  };
  walk(root, '');
  const out: string[] = [];
  for (const [p, v] of onDisk) if (inTree.get(p) !== v) out.push(`${p}: disk ${v}, tree ${inTree.get(p) ?? 'absent'}`);
  for (const p of inTree.keys()) if (!onDisk.has(p)) out.push(`${p}: only in the tree`);
  return out;
}

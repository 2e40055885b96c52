/**
 * Imports that stream (issue 15 item 4): the log is written aside in batches and put in place whole, commits are
 * written in-process, stats come from the shadow's resident diff-tree. Checked here against what does not share
 * that code: every checkpoint's stats against plain `git diff-tree -M --numstat` (real transcripts and a
 * synthetic one long enough for several batches), and the all-or-nothing promise when the import is killed or
 * fails midway (nothing visible, or a state that recovery completes).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeSyntheticTranscript } from '../../bench/claudeSynthetic';
import { importClaudeCode } from '../../src/main/integrations/claude-code/import';
import { importCline } from '../../src/main/integrations/cline/import';
import { writeImportedSession, type ImportMessage } from '../../src/main/integrations/importSession';
import { resolveWorkspace, type WorkspaceRef } from '../../src/main/engine/workspace';
import { WorkspaceEngine } from '../../src/main/engine/workspaceEngine';
import { cleanupTempDirs, cliJson, makeWorkspace, runCli, tempDir, tempHome } from '../helpers';
import { FIXTURES, HAVE_FIXTURES, NO_FIXTURES } from './fixtures';

afterAll(cleanupTempDirs);

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const SESSION = '5f1c0de0-0000-4000-8000-000000000015'; // the synthetic transcript's

interface LogLine {
  type: string;
  hash?: string;
  hidden?: boolean;
  stats?: { files: number; insertions: number; deletions: number };
}

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const gitAt = (ws: WorkspaceRef, args: string[]) =>
  execFileSync('git', [`--git-dir=${join(ws.dir, 'shadow.git')}`, ...args], { env: gitEnv, maxBuffer: 64 << 20 });

/** What git's numstat says between two commits (null: the empty tree), summed as a checkpoint's stats are. */
function numstat(ws: WorkspaceRef, from: string | null, to: string) {
  const a = from === null ? EMPTY_TREE : `${from}^{tree}`;
  const out = gitAt(ws, ['diff-tree', '-r', '-z', '-M', '--numstat', a, `${to}^{tree}`]).toString('utf8');
  const s = { files: 0, insertions: 0, deletions: 0 };
  const tokens = out.split('\0');
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] === '') continue;
    const [ins, del, p] = tokens[i]!.split('\t');
    if (p === '') i += 2; // a rename: its old and new names follow
    s.files++;
    if (ins !== '-') s.insertions += Number(ins);
    if (del !== '-') s.deletions += Number(del);
  }
  return s;
}

/** Every checkpoint of a session's log against git, each against the chain's checkpoint before it. */
function expectStatsAsGit(ws: WorkspaceRef, session: string): number {
  const lines = readFileSync(join(ws.dir, 'sessions', `${session}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LogLine);
  let prev: string | null = null;
  let n = 0;
  for (const l of lines) {
    if (l.type !== 'message' || !l.hash) continue;
    expect(l.stats, `${session} checkpoint ${l.hash}`).toEqual(numstat(ws, prev, l.hash));
    if (!l.hidden) prev = l.hash;
    n++;
  }
  return n;
}

function transcripts(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...transcripts(p));
    else if (name.endsWith('.jsonl') && !name.startsWith('agent-')) out.push(p);
  }
  return out;
}

describe('streaming import: stats equal git numstat on every checkpoint', () => {
  it('a synthetic transcript long enough for several log batches', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'README.md': 'synthetic\n' });
    const file = join(tempDir('retrace-synthetic-'), 'long.jsonl');
    writeSyntheticTranscript(file, { bytes: 10 * 2 ** 20, cwd: root, sessionId: SESSION });
    const res = await importClaudeCode({ file, cwd: root, dataHome: home });
    expect(res.messages).toBeGreaterThan(600); // more than one batch of 512
    const ws = await resolveWorkspace(root, { dataHome: home });
    expect(expectStatsAsGit(ws, SESSION)).toBe(res.checkpoints);
  });

  it.skipIf(!HAVE_FIXTURES)('every real Claude Code transcript and the Cline task', async () => {
    for (const file of transcripts(FIXTURES)) {
      const home = tempHome();
      const root = makeWorkspace({ 'README.md': 'here before\n' });
      let res;
      try {
        res = await importClaudeCode({ file, cwd: root, dataHome: home, env: { CLAUDE_CONFIG_DIR: tempDir() } });
      } catch {
        continue; // a transcript the importer refuses (no conversation) has no checkpoints to check
      }
      const ws = await resolveWorkspace(root, { dataHome: home });
      expect(expectStatsAsGit(ws, res.session), file).toBe(res.checkpoints);
    }
    const clineTasks = join(FIXTURES, '..', 'cline', '01-occ-export');
    for (const task of readdirSync(clineTasks).filter((n) => /^\d+$/.test(n))) {
      const home = tempHome();
      const root = tempDir('retrace-cline-ws-');
      const res = await importCline({ taskDir: join(clineTasks, task), cwd: root, dataHome: home });
      const ws = await resolveWorkspace(root, { dataHome: home });
      expect(expectStatsAsGit(ws, res.session)).toBe(res.checkpoints);
    }
  });
  if (!HAVE_FIXTURES) it.skip(NO_FIXTURES, () => {});
});

describe('streaming import: all or nothing', () => {
  const staged = (ws: WorkspaceRef) => readdirSync(join(ws.dir, 'sessions')).filter((n) => n.endsWith('.importing'));

  it('killed before its log is placed: no session (not even an empty one); the next import writes it whole', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'README.md': 'x\n' });
    const file = join(tempDir('retrace-synthetic-'), 't.jsonl');
    writeSyntheticTranscript(file, { bytes: 2 ** 20, cwd: root, sessionId: SESSION });
    const env = { RETRACE_TEST_FAULTS: '1', RETRACE_FAULT: 'checkpoint:after-journal' };
    const killed = await runCli(['import', 'claude-code', file, '--cwd', root, '--json'], { home, env });
    expect(killed.signal).toBe('SIGKILL');
    expect(await cliJson(['sessions', '--cwd', root], { home })).toEqual([]);
    const ws = await resolveWorkspace(root, { dataHome: home });
    expect(staged(ws)).toHaveLength(1); // the staged log, which no listing reads; the next import replaces it

    const done = await cliJson<{ session: string; messages: number; checkpoints: number }>(
      ['import', 'claude-code', file, '--cwd', root, '--json'],
      { home },
    );
    expect(done).toMatchObject({ session: SESSION, skipped: false });
    expect(staged(ws)).toEqual([]);
    const log = await cliJson<{ messages: { hash: string | null }[] }>(['log', '--cwd', root], { home });
    expect(log.messages).toHaveLength(done.messages);
    expect(log.messages.filter((m) => m.hash)).toHaveLength(done.checkpoints);
  });

  it('killed after its log is placed, before the ref moved: recovery moves the ref to the last checkpoint', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'README.md': 'x\n' });
    const file = join(tempDir('retrace-synthetic-'), 't.jsonl');
    writeSyntheticTranscript(file, { bytes: 2 ** 20, cwd: root, sessionId: SESSION });
    const env = { RETRACE_TEST_FAULTS: '1', RETRACE_FAULT: 'checkpoint:after-append' };
    const killed = await runCli(['import', 'claude-code', file, '--cwd', root, '--json'], { home, env });
    expect(killed.signal).toBe('SIGKILL');
    const ws = await resolveWorkspace(root, { dataHome: home });
    const ref = `refs/retrace/sessions/${SESSION}`;
    expect(gitAt(ws, ['for-each-ref', ref]).toString()).toBe(''); // not moved yet
    expect((await runCli(['status', '--cwd', root, '--json'], { home })).code).toBe(0); // recovers
    const log = await cliJson<{ messages: { hash: string | null }[] }>(['log', '--cwd', root], { home });
    const last = log.messages.filter((m) => m.hash).at(-1)!.hash!;
    expect(gitAt(ws, ['rev-parse', ref]).toString().trim()).toBe(last);
    expect(existsSync(join(ws.dir, 'archive', `${SESSION}.gz`))).toBe(true);
  });

  it('a failure after several batches leaves no session, no staged log and no archived copy', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'README.md': 'x\n' });
    const source = join(tempDir('retrace-src-'), 'source.jsonl');
    writeSyntheticTranscript(source, { bytes: 2 ** 16, cwd: root, sessionId: SESSION });
    const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    async function* messages(): AsyncGenerator<ImportMessage> {
      const tree = (await (await engine.shadow()).snapshotTree()).tree;
      for (let i = 0; i < 1500; i++)
        yield {
          role: 'user',
          text: `m${i}`,
          ts: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
          checkpoint: { tree },
        };
      throw new Error('the transcript went away');
    }
    await expect(
      engine.write(() =>
        writeImportedSession(engine, {
          id: SESSION,
          source: 'claude-code',
          importer: 'test',
          messages: messages(),
          origin: { kind: 'claude-code', transcript: source, sessionId: SESSION, cwd: root },
        }),
      ),
    ).rejects.toThrow('the transcript went away');
    expect(engine.sessions.ids()).toEqual([]);
    expect(readdirSync(join(engine.ws.dir, 'sessions'))).toEqual([]);
    expect(existsSync(join(engine.ws.dir, 'archive')) ? readdirSync(join(engine.ws.dir, 'archive')) : []).toEqual([]);
  });
});

/**
 * `retrace import claude-code` end to end, through the real CLI and real git: both shared fixtures and a
 * transcript with a rewind, a sub-agent and a torn last line. Per-step diffs are checked against what the
 * transcript itself says each tool did; restores change only the files the agent touched; the forked
 * transcript of a conversation restore is valid and the original stays byte-identical.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  cliJson,
  fileSha,
  makeWorkspace,
  runCli,
  tempDir,
  tempHome,
  workspaceDataDir,
} from '../helpers';
import { resolveWorkspace } from '../../src/main/engine/workspace';
import { WorkspaceEngine } from '../../src/main/engine/workspaceEngine';
import { rewindTranscript } from './claudeTranscript';
import { F1, F2, F2_AGENT, FIXTURES, fixture, HAVE_FIXTURES, NO_FIXTURES } from './fixtures';

/** Tests on the real transcripts in ../shared/fixtures: skipped, saying so, when that folder is absent. */
const itFixtures = it.skipIf(!HAVE_FIXTURES);
if (!HAVE_FIXTURES) it.skip(NO_FIXTURES, () => {});

afterAll(cleanupTempDirs);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed transcript / log lines, read by field
type Json = Record<string, any>;

interface LogMessage {
  id: string;
  role: string;
  text: string;
  hash: string | null;
  hidden: boolean;
}
interface Log {
  session: string;
  messages: LogMessage[];
}
interface FileDiff {
  path: string;
  status: string;
  before: string | null;
  after: string | null;
}

/** A Claude Code config folder with the transcript in its project folder (so forks land in a temp dir). */
function claudeHome(rel: string, extra: string[] = []): { config: string; file: string } {
  const config = tempDir('retrace-claude-');
  const project = join(config, 'projects', '-test-project');
  mkdirSync(project, { recursive: true });
  const file = join(project, rel.split('/').pop()!);
  copyFileSync(FIXTURES + rel, file);
  for (const e of extra) copyFileSync(FIXTURES + e, join(project, e.split('/').pop()!));
  return { config, file };
}

/** Main-thread tool results in file order (the fixtures have no rewinds), with their tool name. */
function transcriptToolResults(text: string): { name: string; result: Record<string, unknown> | string | undefined }[] {
  const lines = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Json);
  const names = new Map<string, string>();
  for (const l of lines)
    if (l.type === 'assistant') for (const b of l.message.content) if (b.type === 'tool_use') names.set(b.id, b.name);
  const out: { name: string; result: Json | string | undefined }[] = [];
  for (const l of lines) {
    if (l.type !== 'user' || l.isSidechain || !Array.isArray(l.message.content)) continue;
    for (const b of l.message.content)
      if (b.type === 'tool_result') out.push({ name: names.get(b.tool_use_id)!, result: l.toolUseResult });
  }
  return out;
}

function sessionEvents(home: string, root: string, session: string): Json[] {
  const dir = workspaceDataDir(home, root)!;
  return readFileSync(join(dir, 'sessions', `${session}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

describe('retrace import claude-code', () => {
  itFixtures(
    'fixture 2: messages in order, one checkpoint per prompt and edit, each step shows exactly what the transcript edited',
    async () => {
      const home = tempHome();
      const ws = makeWorkspace({ 'keep.txt': 'not touched by the agent\n' });
      const { config, file } = claudeHome(F2, [F2_AGENT]);
      const env = { CLAUDE_CONFIG_DIR: config };
      const res = await cliJson(['import', 'claude-code', file, '--cwd', ws], { home, env });
      expect(res).toMatchObject({
        session: 'a7da6a22-facc-4fcd-8bab-f83c87862004',
        messages: 225,
        checkpoints: 32,
        hidden: 0,
        skipped: false,
      });
      // Each edit not rebuilt is listed once per file and reason (three edits of one plan file outside the workspace).
      expect((res.reconstructed as { missing: unknown[] }).missing).toEqual([
        { path: '/home/cboos/.claude/plans/humble-doodling-wolf.md', reason: 'outside the workspace' },
      ]);

      const log = await cliJson<Log>(['log', '--cwd', ws], { home });
      expect(log.session).toBe('a7da6a22-facc-4fcd-8bab-f83c87862004');
      expect(log.messages).toHaveLength(225);
      expect(log.messages.filter((m) => m.role === 'tool')).toHaveLength(108);
      expect(log.messages.find((m) => m.role === 'user')!.text).toContain('/context');
      expect(log.messages.filter((m) => m.role === 'user').at(-1)!.text).toBe('Excellent work, thank you!');
      const sessions = await cliJson<{ id: string; source: string }[]>(['sessions', '--cwd', ws], { home });
      expect(sessions).toMatchObject([{ id: 'a7da6a22-facc-4fcd-8bab-f83c87862004', source: 'claude-code' }]);

      // Walk the checkpoints: every Edit step's diff is that one file, before = originalFile, after = the edit applied.
      const edits = transcriptToolResults(fixture(F2)).filter((t) => t.name === 'Edit' && typeof t.result === 'object');
      const toolMsgs = log.messages.filter((m) => m.role === 'tool' && m.text.startsWith('Edit '));
      expect(toolMsgs).toHaveLength(edits.length);
      const hashes = log.messages.filter((m) => m.hash).map((m) => m.hash!);
      // All twenty through the engine in-process (real git, no process per call); two of them through the CLI too.
      const engine = new WorkspaceEngine(await resolveWorkspace(ws, { dataHome: home }));
      for (const [i, m] of toolMsgs.entries()) {
        const r = edits[i]!.result as Record<string, string>;
        const rel = r.filePath!.slice('/src/deep-manifest/'.length);
        expect(m.text.split('\n')[0]).toBe(`Edit ${rel}`);
        const prev = hashes[hashes.indexOf(m.hash!) - 1]!;
        const files = await engine.diff(prev, m.hash!);
        expect(files.map((f) => [f.path, f.status])).toEqual([[rel, 'modified']]);
        const f = await engine.fileContents(prev, m.hash!, rel);
        expect(f.before).toBe(r.originalFile);
        expect(f.after).toBe(r.originalFile!.replace(r.oldString!, r.newString!));
        if (i === 0 || i === toolMsgs.length - 1) {
          const d = await cliJson<{ files: { path: string; status: string }[] }>(['diff', prev, m.hash!, '--cwd', ws], {
            home,
          });
          expect(d.files.map((x) => [x.path, x.status])).toEqual([[rel, 'modified']]);
          const c = await cliJson<FileDiff>(['diff', prev, m.hash!, '--file', rel, '--cwd', ws], { home });
          expect([c.before, c.after]).toEqual([f.before, f.after]);
        }
      }
      // The log says which files each checkpoint was rebuilt from.
      const events = sessionEvents(home, ws, 'a7da6a22-facc-4fcd-8bab-f83c87862004');
      const gitignore = events.find((e) => e.hash && e.text?.startsWith('Edit .gitignore'));
      expect(gitignore!.meta.reconstructed).toEqual({ files: ['.gitignore'], missing: [] });
      const plan = events.find((e) => e.hash && e.text?.startsWith('Write /home/cboos'));
      expect(plan!.meta.reconstructed).toEqual({
        files: [],
        missing: ['/home/cboos/.claude/plans/humble-doodling-wolf.md'],
      });

      // Importing again changes nothing, and says so; --replace imports it afresh (still one session).
      const again = await runCli(['import', 'claude-code', file, '--cwd', ws], { home, env });
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/is in this workspace already .*nothing changed/);
      const replaced = await cliJson(['import', 'claude-code', file, '--cwd', ws, '--replace'], { home, env });
      expect(replaced).toMatchObject({ skipped: false, messages: 225, checkpoints: 32 });
      expect(await cliJson<unknown[]>(['sessions', '--cwd', ws], { home })).toHaveLength(1);
      expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('not touched by the agent\n');
    },
  );

  itFixtures(
    "fixture 1: each Task step adds what its sub-agent wrote; Write's content verbatim; the workspace's own files stay",
    async () => {
      const home = tempHome();
      const ws = makeWorkspace({ 'notes.md': 'mine\n' });
      const { config, file } = claudeHome(F1);
      const res = await cliJson(['import', 'claude-code', file, '--cwd', ws], {
        home,
        env: { CLAUDE_CONFIG_DIR: config },
      });
      expect(res).toMatchObject({ session: 'fe5e1c67-53e7-4862-81ae-d0e013e3270b', messages: 23, checkpoints: 8 });
      const log = await cliJson<Log>(['log', '--cwd', ws], { home });
      expect(log.messages.map((m) => m.role).join(' ')).toBe(
        'user system assistant tool tool assistant tool assistant tool tool tool assistant tool assistant tool tool assistant tool assistant user assistant tool assistant',
      );
      const cps = log.messages.filter((m) => m.hash);
      const step = async (startsWith: string) => {
        const i = cps.findIndex((m) => m.text.startsWith(startsWith));
        return cliJson<{ files: { path: string; status: string }[] }>(
          ['diff', cps[i - 1]!.hash!, cps[i]!.hash!, '--cwd', ws],
          { home },
        );
      };
      expect((await step('Task Build TODO components')).files.map((f) => `${f.status} ${f.path}`)).toEqual([
        'added components/AddTodo.tsx',
        'added components/Filter.tsx',
        'added components/TodoItem.tsx',
        'added components/TodoList.tsx',
        'added components/index.ts',
      ]);
      expect((await step('Task Create data models')).files).toHaveLength(7);
      expect((await step('Write CLAUDE.md')).files.map((f) => `${f.status} ${f.path}`)).toEqual(['added CLAUDE.md']);
      const write = transcriptToolResults(fixture(F1)).find((t) => t.name === 'Write')!.result as Record<
        string,
        string
      >;
      const last = cps.at(-1)!.hash!;
      const claude = await cliJson<FileDiff>(['diff', cps.at(-2)!.hash!, last, '--file', 'CLAUDE.md', '--cwd', ws], {
        home,
      });
      expect(claude).toMatchObject({ before: null, after: write.content });
      // Untouched by the agent: in every checkpoint as it is in the workspace.
      const notes = await cliJson<FileDiff>(['diff', cps[0]!.hash!, '--file', 'notes.md', '--cwd', ws], { home });
      expect(notes).toMatchObject({ before: 'mine\n', after: 'mine\n' });
    },
  );

  it('a rewind, a sub-agent and a torn last line: hidden branch, per-step restore touches only agent files, resumable fork', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'three\n', 'b.txt': 'bee\n', 'other.txt': 'the user wrote this\n' });
    const config = tempDir('retrace-claude-');
    const project = join(config, 'projects', ws.replace(/[^a-zA-Z0-9]/g, '-'));
    mkdirSync(project, { recursive: true });
    const file = join(project, '11111111-2222-4333-8444-555555555555.jsonl');
    writeFileSync(file, rewindTranscript(ws));
    const originalSha = fileSha(file);
    const env = { CLAUDE_CONFIG_DIR: config };

    const r = await runCli(['import', 'claude-code', file], { home, env }); // the workspace comes from the transcript's cwd
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/unknown type 'x-future-record'/);
    expect(r.stderr).toMatch(/last line is incomplete/);
    const log = await cliJson<Log>(['log', '--cwd', ws], { home });
    expect(log.messages.map((m) => m.text.split('\n')[0])).toEqual([
      'Create a.txt',
      'Creating it.',
      'Write a.txt',
      'Done.',
      'Make it three instead',
      '[Task Write b.txt]',
      'Task Write b.txt',
      '[Edit a.txt]',
      'Edit a.txt',
      'Three',
    ]);
    const all = await cliJson<Log>(['log', '--all', '--cwd', ws], { home });
    expect(all.messages.filter((m) => m.hidden).map((m) => m.text.split('\n')[0])).toEqual([
      'Make it two',
      '[Edit a.txt]',
      'Edit a.txt',
      'Now it says two.',
    ]);
    const byText = (t: string) => log.messages.find((m) => m.text.startsWith(t))!;

    // Restore the code of the step where a.txt was first written: only the agent's files change.
    const otherMtime = statSync(join(ws, 'other.txt')).mtimeMs;
    const restored = await cliJson<{ changed: string[] }>(
      ['restore', byText('Write a.txt').hash!, '--code', '--cwd', ws],
      { home },
    );
    expect(restored.changed.sort()).toEqual(['a.txt', 'b.txt']);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(ws, 'b.txt'))).toBe(false);
    expect(statSync(join(ws, 'other.txt')).mtimeMs).toBe(otherMtime);
    await cliJson(['undo', '--cwd', ws], { home });
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('three\n');

    // Conversation restore: a forked transcript ending at that tool result, resumable, original untouched.
    const conv = await runCli(['restore', byText('Write a.txt').id, '--conversation', '--cwd', ws, '--json'], {
      home,
      env,
    });
    expect(conv.code).toBe(0);
    const resume = (conv.json as { resume: { sessionId: string; command: string; transcript: string } }).resume;
    expect(resume.command).toBe(`claude --resume ${resume.sessionId}`);
    expect(resume.transcript).toBe(join(project, `${resume.sessionId}.jsonl`));
    const forked = readFileSync(resume.transcript, 'utf8');
    expect(forked.endsWith('\n')).toBe(true);
    const lines = forked
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.uuid)).toEqual(['u1', 'a1', 'a1b', 'r1']);
    const original = new Map(
      rewindTranscript(ws)
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.uuid)
        .map((l) => [l.uuid, l]),
    );
    for (const l of lines) {
      expect(l.sessionId).toBe(resume.sessionId);
      expect(Object.keys(l)).toEqual(Object.keys(original.get(l.uuid)!)); // same shape, same key order
      expect({ ...l, sessionId: 'x' }).toEqual({ ...original.get(l.uuid)!, sessionId: 'x' });
    }
    expect(fileSha(file)).toBe(originalSha);
    expect(readdirSync(project).sort()).toEqual(
      [`${resume.sessionId}.jsonl`, '11111111-2222-4333-8444-555555555555.jsonl'].sort(),
    );
    const human = await runCli(['restore', byText('Edit a.txt').id, '--conversation', '--cwd', ws], { home, env });
    expect(human.stdout).toMatch(/continue in Claude Code: claude --resume [0-9a-f-]{36}/);
    // The abandoned branch was never part of the resumed conversation: a conversation restore leaves it hidden.
    const after = await cliJson<Log>(['log', '--all', '--cwd', ws], { home });
    expect(after.messages.filter((m) => m.hidden).map((m) => m.text.split('\n')[0])).toEqual([
      'Make it two',
      '[Edit a.txt]',
      'Edit a.txt',
      'Now it says two.',
      'Three',
    ]);
    expect(fileSha(file)).toBe(originalSha);
  });

  itFixtures(
    'fixture 2 fork: the chain up to the chosen step with its file-history lines, every line complete JSON',
    async () => {
      const home = tempHome();
      const ws = makeWorkspace({ 'keep.txt': 'x\n' });
      const { config, file } = claudeHome(F2, [F2_AGENT]);
      const sha = fileSha(file);
      const env = { CLAUDE_CONFIG_DIR: config };
      await cliJson(['import', 'claude-code', file, '--cwd', ws], { home, env });
      const log = await cliJson<Log>(['log', '--cwd', ws], { home });
      const target = log.messages.filter((m) => m.text.startsWith('Edit tests/test_unit.py'))[0]!;
      const res = await cliJson<{ resume: { transcript: string; sessionId: string } }>(
        ['restore', target.id, '--conversation', '--cwd', ws],
        { home, env },
      );
      const lines = readFileSync(res.resume.transcript, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Json);
      const conversation = lines.filter((l) => l.uuid);
      expect(conversation[0]!.parentUuid).toBeNull();
      for (let i = 1; i < conversation.length; i++) expect(conversation[i]!.parentUuid).toBe(conversation[i - 1]!.uuid);
      const last = conversation.at(-1)!;
      expect(last.message.content[0].type).toBe('tool_result');
      expect(last.toolUseResult.filePath).toBe('/src/deep-manifest/tests/test_unit.py');
      expect(lines.every((l) => l.sessionId === undefined || l.sessionId === res.resume.sessionId)).toBe(true);
      expect(lines.filter((l) => l.type === 'file-history-snapshot').length).toBeGreaterThan(3);
      expect(lines.some((l) => l.isSidechain)).toBe(false);
      expect(fileSha(file)).toBe(sha);
    },
  );

  itFixtures(
    'fixture 1 fork at one of three parallel Task results: the other results come along, so no call is left unanswered',
    async () => {
      const home = tempHome();
      const ws = makeWorkspace({ 'keep.txt': 'x\n' });
      const { config, file } = claudeHome(F1);
      const env = { CLAUDE_CONFIG_DIR: config };
      await cliJson(['import', 'claude-code', file, '--cwd', ws], { home, env });
      const log = await cliJson<Log>(['log', '--cwd', ws], { home });
      const target = log.messages.find((m) => m.text.startsWith('Task Build TODO components'))!;
      const res = await cliJson<{ resume: { transcript: string } }>(
        ['restore', target.id, '--conversation', '--cwd', ws],
        { home, env },
      );
      const lines = readFileSync(res.resume.transcript, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Json);
      const calls = lines
        .flatMap((l) => (l.type === 'assistant' ? l.message.content : []))
        .filter((b: Json) => b.type === 'tool_use');
      const results = lines
        .flatMap((l) => (l.type === 'user' && Array.isArray(l.message.content) ? l.message.content : []))
        .filter((b: Json) => b.type === 'tool_result');
      expect(calls.map((c: Json) => c.name)).toEqual(['Glob', 'Glob', 'TodoWrite', 'Task', 'Task', 'Task']);
      expect(results.map((r: Json) => r.tool_use_id).sort()).toEqual(calls.map((c: Json) => c.id).sort());
      expect(lines.some((l) => l.isSidechain)).toBe(false);
    },
  );

  it("sub-agents in their own files (2.1.x <session>/subagents/, 2.0.x agent-*.jsonl beside it), other sessions' agents ignored", async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'three\n' });
    const config = tempDir('retrace-claude-');
    const project = join(config, 'projects', 'p');
    const sid = '11111111-2222-4333-8444-555555555555';
    mkdirSync(join(project, sid, 'subagents'), { recursive: true });
    const all = rewindTranscript(ws, sid).split('\n');
    const side = all.filter((l) => l.includes('"isSidechain":true'));
    const main = all.filter((l) => !l.includes('"isSidechain":true'));
    // 2.1.x: the sub-agent's lines in their own file, tied to the Task by the agentId its result names.
    const withAgent = (l: string) => l.replace('"isSidechain":true', '"isSidechain":true,"agentId":"a1b2c3d4"');
    writeFileSync(join(project, sid, 'subagents', 'agent-a1b2c3d4.jsonl'), side.map(withAgent).join('\n') + '\n');
    const file = join(project, `${sid}.jsonl`);
    writeFileSync(
      file,
      main.map((l) => l.replace('"totalDurationMs":10', '"totalDurationMs":10,"agentId":"a1b2c3d4"')).join('\n'),
    );
    // Another session's agent file in the same folder: not this session's changes.
    const foreign = side.map((l) =>
      l.replaceAll(sid, '99999999-2222-4333-8444-555555555555').replaceAll('b.txt', 'z.txt'),
    );
    writeFileSync(join(project, 'agent-0badc0de.jsonl'), foreign.join('\n') + '\n');
    const res = await cliJson(['import', 'claude-code', file], { home });
    // messages: the visible ones (as `retrace sessions` counts them); hidden: the rewound branch.
    expect(res).toMatchObject({ messages: 10, hidden: 4, checkpoints: 5 });
    const log = await cliJson<Log>(['log', '--cwd', ws], { home });
    const cps = log.messages.filter((m) => m.hash);
    const task = cps.findIndex((m) => m.text.startsWith('Task Write b.txt'));
    const d = await cliJson<{ files: { path: string; status: string }[] }>(
      ['diff', cps[task - 1]!.hash!, cps[task]!.hash!, '--cwd', ws],
      { home },
    );
    expect(d.files.map((f) => `${f.status} ${f.path}`)).toEqual(['added b.txt']);
    expect(log.messages.some((m) => m.text.includes('SIDECHAIN-ONLY'))).toBe(false);
  });

  it("a transcript imported from outside Claude Code's folders is forked into the project folder of its cwd", async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'three\n', 'b.txt': 'bee\n' });
    const config = tempDir('retrace-claude-');
    const backup = tempDir('retrace-backup-');
    const file = join(backup, 'copy.jsonl');
    writeFileSync(file, rewindTranscript(ws));
    const env = { CLAUDE_CONFIG_DIR: config };
    await cliJson(['import', 'claude-code', file], { home, env });
    const log = await cliJson<Log>(['log', '--cwd', ws], { home });
    const target = log.messages.find((m) => m.text.startsWith('Write a.txt'))!;
    const res = await cliJson<{ resume: { sessionId: string; transcript: string } }>(
      ['restore', target.id, '--conversation', '--cwd', ws],
      { home, env },
    );
    expect(res.resume.transcript).toBe(
      join(config, 'projects', ws.replace(/[^a-zA-Z0-9]/g, '-'), `${res.resume.sessionId}.jsonl`),
    );
    expect(readdirSync(backup)).toEqual(['copy.jsonl']);
  });

  it('bad input: a missing file, a transcript without a conversation', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'x.txt': 'x\n' });
    const missing = await runCli(['import', 'claude-code', join(ws, 'nope.jsonl'), '--cwd', ws, '--json'], { home });
    expect(missing.code).toBe(1);
    expect((missing.json as { error: { code: string } }).error.code).toBe('E_IMPORT');
    expect(missing.stderr).toMatch(/^retrace: no such transcript/);
    const empty = join(ws, 'empty.jsonl');
    writeFileSync(empty, '{"type":"summary","summary":"x","leafUuid":"y"}\n');
    const none = await runCli(['import', 'claude-code', empty, '--cwd', ws], { home });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/holds no Claude Code conversation/);
    const usage = await runCli(['import', 'cursor', empty], { home });
    expect(usage.code).toBe(2);
    // Not a file: refused before a byte is read (a pipe would wait for a writer for ever, /dev/zero never ends).
    const fifo = join(tempDir('retrace-fifo-'), 'session.jsonl');
    execFileSync('mkfifo', [fifo]);
    for (const [asked, path] of [
      ['claude-code', '/dev/zero'],
      ['auto', fifo],
      ['codex', fifo],
    ]) {
      const special = await runCli(['import', asked!, path!, '--cwd', ws, '--json'], { home, timeoutMs: 20_000 });
      expect([special.code, (special.json as { error: { code: string } }).error.code]).toEqual([1, 'E_IMPORT']);
      expect(special.stderr).toContain(`${path} is a device, pipe or socket, not a file`);
    }
    // A sub-agent's own file (2.1.x: <project>/<session>/subagents/, 2.0.x: beside it) names the session to import.
    const sid = '5e55a9e0-0000-4000-8000-00000000c0de';
    const side = JSON.stringify({
      parentUuid: null,
      isSidechain: true,
      sessionId: sid,
      uuid: 'side-1',
      type: 'user',
      cwd: ws,
      timestamp: '2025-06-01T00:00:00.000Z',
      message: { role: 'user', content: 'look around' },
    });
    const project = tempDir('retrace-project-');
    writeFileSync(join(project, `${sid}.jsonl`), '');
    mkdirSync(join(project, sid, 'subagents'), { recursive: true });
    for (const file of [join(project, sid, 'subagents', 'agent-a1.jsonl'), join(project, 'agent-b2.jsonl')]) {
      writeFileSync(file, side + '\n');
      const sub = await runCli(['import', 'auto', file, '--cwd', ws, '--json'], { home });
      expect([sub.code, (sub.json as { error: { code: string } }).error.code]).toEqual([1, 'E_IMPORT']);
      expect(sub.stderr).toContain(`a side thread of session ${sid}: import ${join(project, `${sid}.jsonl`)} instead`);
    }
    const elsewhere = join(ws, 'moved.jsonl');
    writeFileSync(elsewhere, rewindTranscript('/no/such/folder/anymore'));
    const gone = await runCli(['import', 'claude-code', elsewhere], { home });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^retrace: .*\/no\/such\/folder\/anymore.*give the workspace with --cwd/);
  });

  it('file-history backups (CLAUDE_CONFIG_DIR) rebuild what the transcript lacks; the log says what was rebuilt', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'x.md': 'an new line\n' });
    const config = tempDir('retrace-claude-');
    const sid = '22222222-3333-4444-8555-666666666666';
    const project = join(config, 'projects', 'p');
    mkdirSync(project, { recursive: true });
    const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s)).toISOString();
    const conv = (o: Json) => JSON.stringify({ isSidechain: false, cwd: ws, sessionId: sid, version: '1.0.50', ...o });
    const file = join(project, `${sid}.jsonl`);
    writeFileSync(
      file,
      [
        JSON.stringify({
          type: 'file-history-snapshot',
          messageId: 'p1',
          snapshot: { messageId: 'p1', trackedFileBackups: {} },
          isSnapshotUpdate: false,
        }),
        conv({
          parentUuid: null,
          type: 'user',
          message: { role: 'user', content: 'fix x.md' },
          uuid: 'p1',
          timestamp: at(0),
        }),
        conv({
          parentUuid: 'p1',
          type: 'assistant',
          message: {
            id: 'm1',
            role: 'assistant',
            content: [
              {
                type: 'tool_use',
                id: 't1',
                name: 'Edit',
                input: { file_path: join(ws, 'x.md'), old_string: 'old', new_string: 'new' },
              },
            ],
          },
          uuid: 'a1',
          timestamp: at(1),
        }),
        JSON.stringify({
          type: 'file-history-snapshot',
          messageId: 'a1',
          snapshot: {
            messageId: 'p1',
            trackedFileBackups: { 'x.md': { backupFileName: `${'0'.repeat(16)}@v1`, version: 1 } },
          },
          isSnapshotUpdate: true,
        }),
        // no toolUseResult: the transcript alone cannot tell x.md's content
        conv({
          parentUuid: 'a1',
          type: 'user',
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
          uuid: 'r1',
          timestamp: at(2),
        }),
      ].join('\n') + '\n',
    );
    const withoutBackups = await cliJson(['import', 'claude-code', file], { home, env: { CLAUDE_CONFIG_DIR: config } });
    expect(withoutBackups).toMatchObject({
      checkpoints: 2,
      reconstructed: { files: [], missing: [{ path: 'x.md', reason: expect.stringMatching(/not known/) }] },
    });
    mkdirSync(join(config, 'file-history', sid), { recursive: true });
    writeFileSync(join(config, 'file-history', sid, `${'0'.repeat(16)}@v1`), 'an old line\n');
    const res = await cliJson(['import', 'claude-code', file, '--replace'], {
      home,
      env: { CLAUDE_CONFIG_DIR: config },
    });
    expect(res).toMatchObject({ checkpoints: 2, reconstructed: { files: ['x.md'], missing: [] } });
    const log = await cliJson<{ messages: (LogMessage & { meta?: Json })[] }>(['log', '--cwd', ws], { home });
    const [prompt, tool] = log.messages.filter((m) => m.hash);
    expect(tool!.meta!.reconstructed).toEqual({ files: ['x.md'], missing: [] });
    const f = await cliJson<FileDiff>(['diff', prompt!.hash!, tool!.hash!, '--file', 'x.md', '--cwd', ws], { home });
    expect([f.before, f.after]).toEqual(['an old line\n', 'an new line\n']);
    const human = await runCli(['log', '--cwd', ws], { home });
    expect(human.stdout).toMatch(/rebuilt: 1 file/);
  });
});

/**
 * `retrace import cline` without Cline's shadow repository: the session shows what Cline's chat shows, and
 * the steps are rebuilt from the edits `ui_messages.json` records. One synthetic task per case
 * (test/fixtures/cline-synthetic), imported through the CLI into a real workspace; checkpoint contents are
 * read back from the shadow repository with git.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blocks, TaskBuilder } from '../fixtures/cline-synthetic/tasks';
import { cleanupTempDirs, cliJson, gitAt, makeWorkspace, REPO_ROOT, shadowDir, tempDir, tempHome } from '../helpers';
import { auditClineTask } from '../../src/main/integrations/cline/audit';

afterAll(cleanupTempDirs);

interface LogMessage {
  role: string;
  text: string;
  hash: string | null;
  hidden: boolean;
  meta?: {
    sourceId?: string;
    partial?: boolean;
    reasoning?: boolean;
    reconstructed?: { files: string[]; missing: string[] };
  };
}
interface ImportResult {
  session: string;
  warnings: string[];
  messages: number;
  hidden: number;
  checkpoints: number;
  reconstructed: { files: string[]; missing: { path: string; reason: string; sourceId: string }[] };
  edits: {
    source: string;
    applied: number;
    rebuilt: number;
    missing: number;
    notApplied: { path: string; reason: string; sourceId: string }[];
  };
}

/** Import the task (no Cline repository anywhere) and read the session back. */
async function importTask(task: TaskBuilder, ws: string, id = '1748768400000') {
  const home = tempHome();
  const storage = tempDir('retrace-cline-storage-');
  const dir = task.write(storage, id);
  const res = await cliJson<ImportResult>(['import', 'cline', dir, '--cwd', ws], { home });
  const log = await cliJson<{ messages: LogMessage[] }>(['log', '--all', '--cwd', ws], { home });
  const fileAt = (hash: string, path: string): string | null => {
    try {
      return gitAt(shadowDir(home, ws), ['show', `${hash}:${path}`]);
    } catch {
      return null;
    }
  };
  return { res, log: log.messages, fileAt, dir };
}

function bySource(log: LogMessage[], ts: number): LogMessage {
  const m = log.find((x) => x.meta?.sourceId === String(ts));
  if (!m) throw new Error(`no message for ts ${ts}`);
  return m;
}

describe('Cline import: the conversation as Cline shows it', () => {
  it("conversationHistoryDeletedRange (dropped from the model's context) hides nothing", async () => {
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const t = new TaskBuilder(ws);
    t.say('task', 'Explain the project', { conversationHistoryIndex: -1 });
    t.request();
    const early = t.say('text', 'Looking around first.', { conversationHistoryIndex: 0 });
    t.say('tool', JSON.stringify({ tool: 'readFile', path: 'a.txt', content: `${ws}/a.txt` }), {
      conversationHistoryIndex: 0,
    });
    t.request("[read_file for 'a.txt'] Result:\na");
    const later = t.say('text', 'It holds one letter.', { conversationHistoryIndex: 2 });
    t.say('completion_result', 'Done.', { conversationHistoryIndex: 4, conversationHistoryDeletedRange: [0, 3] });
    const { res, log } = await importTask(t, ws);
    expect(res.hidden).toBe(0);
    expect(log.filter((m) => m.hidden)).toEqual([]);
    expect(log.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Explain the project'],
      ['assistant', 'Looking around first.'],
      ['tool', 'readFile a.txt'],
      ['assistant', 'It holds one letter.'],
      ['assistant', 'Done.'],
    ]);
    expect(bySource(log, early).hidden).toBe(false);
    expect(bySource(log, later).hidden).toBe(false);
  });

  it('a task prompt saved as say:"text" is the person\'s prompt (and the title); user_feedback is the person too', async () => {
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const t = new TaskBuilder(ws);
    const prompt = t.say('text', 'Rename the helper');
    t.request();
    t.say('text', 'Which helper?');
    const feedback = t.say('user_feedback', 'The one in a.txt');
    t.say('completion_result', 'Renamed.');
    const home = tempHome();
    const dir = t.write(tempDir('retrace-cline-storage-'), '1748768400001');
    await cliJson(['import', 'cline', dir, '--cwd', ws], { home });
    const log = (await cliJson<{ messages: LogMessage[] }>(['log', '--cwd', ws], { home })).messages;
    expect(bySource(log, prompt)).toMatchObject({ role: 'user', text: 'Rename the helper' });
    expect(bySource(log, feedback)).toMatchObject({ role: 'user', text: 'The one in a.txt' });
    expect(log.filter((m) => m.role === 'user')).toHaveLength(auditClineTask(dir).typedPrompts);
    const sessions = await cliJson<{ title: string }[]>(['sessions', '--cwd', ws], { home });
    expect(sessions[0]!.title).toBe('Rename the helper');
  });

  it('a text saved with partial:true and followed by a tool call is complete and shown; only a trailing one is marked partial', async () => {
    const ws = makeWorkspace({ 'a.txt': 'a\n' });
    const t = new TaskBuilder(ws);
    t.say('task', 'Read a.txt');
    t.request();
    const thought = t.say('reasoning', 'The file is small.', { partial: true });
    const said = t.say('text', 'I will read a.txt first.', { partial: true });
    t.say('tool', JSON.stringify({ tool: 'readFile', path: 'a.txt', content: `${ws}/a.txt` }));
    t.request("[read_file for 'a.txt'] Result:\na");
    const cut = t.say('text', 'It says', { partial: true });
    t.ask('resume_task');
    const { log } = await importTask(t, ws);
    expect(bySource(log, thought)).toMatchObject({ role: 'assistant', text: 'The file is small.' });
    expect(bySource(log, thought).meta).toMatchObject({ reasoning: true });
    expect(bySource(log, said)).toMatchObject({ role: 'assistant', text: 'I will read a.txt first.' });
    expect(bySource(log, said).meta?.partial).toBeUndefined();
    expect(bySource(log, cut)).toMatchObject({ role: 'assistant', text: 'It says', meta: { partial: true } });
  });
});

describe('Cline import: steps rebuilt from ui_messages.json', () => {
  it('a new file, then SEARCH/REPLACE edits: one checkpoint per edit, each holding the file as it was then', async () => {
    const ws = makeWorkspace({ 'README.md': '# app\n' });
    const v1 = 'export const greet = () => "hi";\nexport const n = 1;\n';
    const v2 = 'export const greet = () => "hello";\nexport const n = 1;\n';
    const v3 = 'export const greet = () => "hello";\nexport const n = 2;\n';
    const t = new TaskBuilder(ws);
    t.say('task', 'Add a greeting');
    t.request();
    const create = t.edit('say', 'newFileCreated', 'src/greet.ts', { content: v1 });
    t.result('write_to_file', 'src/greet.ts', { saved: v1 });
    const e1 = t.edit('say', 'editedExistingFile', 'src/greet.ts', {
      diff: blocks(['export const greet = () => "hi";', 'export const greet = () => "hello";']),
    });
    t.result('replace_in_file', 'src/greet.ts', { saved: v2 });
    // No saved content in this result: the blocks are replayed on the content before.
    const e2 = t.edit('say', 'editedExistingFile', 'src/greet.ts', {
      content: blocks(['export const n = 1;', 'export const n = 2;']),
    });
    t.request("[replace_in_file for 'src/greet.ts'] Result:\nThe content was successfully saved to src/greet.ts.");
    t.say('completion_result', 'Done.');
    const { res, log, fileAt } = await importTask(t, ws);

    expect(res.edits).toMatchObject({ source: 'ui_messages', applied: 3, rebuilt: 3, missing: 0, notApplied: [] });
    expect(res.reconstructed).toEqual({ files: ['src/greet.ts'], missing: [] });
    const prompt = log[0]!;
    expect(prompt.hash).not.toBeNull();
    expect(fileAt(prompt.hash!, 'src/greet.ts')).toBeNull();
    const steps = [create, e1, e2].map((ts) => bySource(log, ts));
    expect(steps.map((m) => m.hash && fileAt(m.hash, 'src/greet.ts'))).toEqual([v1, v2, v3]);
    expect(steps.map((m) => m.meta?.reconstructed)).toEqual(Array(3).fill({ files: ['src/greet.ts'], missing: [] }));
    // The rest of the workspace is as it is now.
    expect(fileAt(steps[2]!.hash!, 'README.md')).toBe('# app\n');
    expect(res.checkpoints).toBe(4);
  });

  it('an edit to a file the task did not create: its earlier content is the workspace walked back through the edits', async () => {
    const now = 'const a = 3;\nconst b = 2;\n';
    const ws = makeWorkspace({ 'lib/calc.ts': now });
    const t = new TaskBuilder(ws);
    t.say('task', 'Tune the constants');
    t.request();
    const e1 = t.edit('say', 'editedExistingFile', 'lib/calc.ts', { diff: blocks(['const a = 1;', 'const a = 2;']) });
    t.request("[replace_in_file for 'lib/calc.ts'] Result:\nThe content was successfully saved to lib/calc.ts.");
    const e2 = t.edit('say', 'editedExistingFile', 'lib/calc.ts', { diff: blocks(['const a = 2;', 'const a = 3;']) });
    t.request("[replace_in_file for 'lib/calc.ts'] Result:\nThe content was successfully saved to lib/calc.ts.");
    const { res, log, fileAt } = await importTask(t, ws);
    expect(res.edits).toMatchObject({ applied: 2, rebuilt: 2, missing: 0 });
    expect(fileAt(log[0]!.hash!, 'lib/calc.ts')).toBe('const a = 1;\nconst b = 2;\n');
    expect(fileAt(bySource(log, e1).hash!, 'lib/calc.ts')).toBe('const a = 2;\nconst b = 2;\n');
    expect(fileAt(bySource(log, e2).hash!, 'lib/calc.ts')).toBe(now);
  });

  it('an edit whose earlier content nothing tells is reported missing with its reason', async () => {
    // The workspace's copy changed since: the edit's REPLACE text is no longer in it.
    const ws = makeWorkspace({ 'lib/conf.ts': 'export const port = 9000;\n' });
    const t = new TaskBuilder(ws);
    t.say('task', 'Change the port');
    t.request();
    const edit = t.edit('say', 'editedExistingFile', 'lib/conf.ts', {
      diff: blocks(['export const port = 80;', 'export const port = 8080;']),
    });
    t.request("[replace_in_file for 'lib/conf.ts'] Result:\nThe content was successfully saved to lib/conf.ts.");
    const { res, log } = await importTask(t, ws);
    expect(res.edits).toMatchObject({ applied: 1, rebuilt: 0, missing: 1 });
    expect(res.reconstructed.missing).toEqual([
      {
        path: 'lib/conf.ts',
        sourceId: String(edit),
        reason: expect.stringMatching(/content before the edit is unknown/),
      },
    ]);
    expect(bySource(log, edit).meta?.reconstructed).toEqual({ files: [], missing: ['lib/conf.ts'] });
    expect(res.warnings).toContainEqual(expect.stringMatching(/^edit of lib\/conf\.ts not rebuilt: /));
  });

  it('an edit the person rejected changes nothing: no checkpoint, listed as not applied', async () => {
    const ws = makeWorkspace({ 'notes.md': 'one\n' });
    const t = new TaskBuilder(ws);
    t.say('task', 'Edit the notes');
    t.request();
    const rejected = t.edit('ask', 'editedExistingFile', 'notes.md', { diff: blocks(['one', 'ONE']) });
    t.say('user_feedback', 'No, add a line instead');
    t.result('replace_in_file', 'notes.md', { deniedWith: 'No, add a line instead' });
    const approved = t.edit('ask', 'editedExistingFile', 'notes.md', { diff: blocks(['one', 'one\ntwo']) });
    t.result('replace_in_file', 'notes.md', { saved: 'one\ntwo\n' });
    const { res, log, fileAt, dir } = await importTask(t, ws);
    expect(res.edits).toMatchObject({ applied: 1, rebuilt: 1, missing: 0 });
    expect(res.edits.notApplied).toEqual([
      { path: 'notes.md', sourceId: String(rejected), reason: 'the person rejected the edit' },
    ]);
    expect(bySource(log, rejected).hash).toBeNull();
    expect(fileAt(log[0]!.hash!, 'notes.md')).toBe('one\n');
    expect(fileAt(bySource(log, approved).hash!, 'notes.md')).toBe('one\ntwo\n');
    expect(auditClineTask(dir).edits).toEqual([{ id: String(approved), path: 'notes.md' }]);
  });
});

const SAMPLE = join(REPO_ROOT, '..', 'shared', 'fixtures', 'cline', '01-occ-export', '1769053680585');

describe('Cline import: the real sample (../shared/fixtures/cline/01-occ-export)', () => {
  it.skipIf(!existsSync(SAMPLE))(
    "every message Cline shows is shown, the prompt is the person's, each applied edit rebuilt or reported",
    async () => {
      const home = tempHome();
      const ws = tempDir('retrace-cline-occ-');
      const storage = tempDir('retrace-cline-storage-');
      const res = await cliJson<ImportResult>(['import', 'cline', SAMPLE, '--storage', storage, '--cwd', ws], {
        home,
      });
      const log = (await cliJson<{ messages: LogMessage[] }>(['log', '--all', '--cwd', ws], { home })).messages;
      const audit = auditClineTask(SAMPLE);
      const ids = new Map(log.map((m) => [m.meta?.sourceId, m]));

      expect(res.hidden).toBe(0);
      expect(log[0]!.role).toBe('user');
      expect(log.filter((m) => m.role === 'user')).toHaveLength(audit.typedPrompts);
      expect(ids.has(audit.newestMessage!)).toBe(true);
      // Every conversation entry of the file is a message (command output is folded into its command).
      const raw = JSON.parse(readFileSync(join(SAMPLE, 'ui_messages.json'), 'utf8')) as {
        ts: number;
        say?: string;
        ask?: string;
        text?: string;
      }[];
      const conversation = raw.filter(
        (e) => ['text', 'reasoning', 'tool', 'command', 'completion_result'].includes(e.say ?? '') && e.text,
      );
      expect(conversation.filter((e) => !ids.has(String(e.ts)))).toEqual([]);
      // Each applied edit: rebuilt at its own message, or reported with a reason; none unaccounted.
      expect(audit.edits.length).toBe(res.edits.applied);
      for (const e of audit.edits) {
        const m = ids.get(e.id);
        const rebuilt = m?.meta?.reconstructed?.files.includes(e.path) === true && m.hash !== null;
        const missing = res.reconstructed.missing.some((x) => x.sourceId === e.id && x.reason !== '');
        expect(rebuilt || missing, `edit ${e.id} ${e.path}`).toBe(true);
      }
      expect(res.edits.rebuilt + res.edits.missing).toBe(res.edits.applied);
      // Replaying each edit on the content rebuilt before it gives the file Cline reports as saved.
      expect(res.warnings.filter((w) => /saved differently/.test(w))).toEqual([]);
      console.log(
        `[cline 01-occ-export] ${raw.length} entries → ${res.messages} messages shown, ${res.hidden} hidden; ` +
          `${res.edits.applied} applied edits: ${res.edits.rebuilt} rebuilt, ${res.edits.missing} missing, ` +
          `${res.edits.notApplied.length} not applied; ${res.checkpoints} checkpoints`,
      );
    },
  );
  if (!existsSync(SAMPLE)) it.skip('skipped: ../shared/fixtures absent', () => {});
});

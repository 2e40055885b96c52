/**
 * `retrace blame`: every line's origin and step, checked against what each recorded step did. Real CLI, real
 * git, real files.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, errorCode, runCli, tempDir, tempHome } from '../helpers';

interface Line {
  line: number;
  hash: string | null;
  message: string | null;
  session: string | null;
  agent: string | null;
  role: string | null;
  origin: string;
}
interface Step {
  session: string;
  message: string;
  hash: string;
}

let home: string;
let root: string;
const opts = () => ({ home, cwd: root });
const write = (rel: string, lines: string[]) => writeFileSync(join(root, rel), lines.map((l) => `${l}\n`).join(''));
const step = (role: string, text: string, session = 'S1') =>
  cliJson<Step>(['message', '--role', role, '--text', text, '--checkpoint', '--session', session], opts());
const blame = async (rel: string, ...extra: string[]) =>
  (await cliJson<{ path: string; lines: Line[] }>(['blame', rel, ...extra], opts())).lines;

/** What the test expects of one line: the step (or none) and the origin. */
const at = (s: Step | null, origin: string, role: string | null, agent: string | null = null) => ({
  hash: s?.hash ?? null,
  message: s?.message ?? null,
  session: s?.session ?? null,
  role,
  agent,
  origin,
});

beforeAll(() => {
  home = tempHome();
  root = tempDir('retrace-blame-ws-');
});
afterAll(cleanupTempDirs);

describe('retrace blame', () => {
  let prompt1: Step, agentEdit: Step, prompt2: Step, rewrite: Step;

  beforeAll(async () => {
    // Before anything was recorded: three lines of the person's own project.
    write('app.ts', ['const base1 = 1;', 'const base2 = 2;', 'const base3 = 3;']);
    prompt1 = await step('user', 'Add two helpers');
    // The agent's tool call: rewrites line 2 and adds two lines.
    write('app.ts', ['const base1 = 1;', 'const agent2 = 2;', 'const base3 = 3;', 'helperA();', 'helperB();']);
    agentEdit = await step('tool', 'Edit app.ts');
    await step('assistant', 'Done: two helpers');
    // Between prompts the person edits one of the agent's lines; the next prompt's checkpoint captures it.
    write('app.ts', ['const base1 = 1;', 'const agent2 = 2;', 'const base3 = 3;', 'personA();', 'helperB();']);
    prompt2 = await step('user', 'Now rename the file and rewrite the rest');
    // A later step moves the file and rewrites line 3 and the agent's second helper.
    mkdirSync(join(root, 'src'));
    renameSync(join(root, 'app.ts'), join(root, 'src/main.ts'));
    write('src/main.ts', ['const base1 = 1;', 'const agent2 = 2;', 'const later3 = 3;', 'personA();', 'later();']);
    rewrite = await step('tool', 'Move app.ts to src/main.ts and rewrite');
    // Not captured yet: the person types a line after the last checkpoint.
    write('src/main.ts', [
      'const base1 = 1;',
      'const agent2 = 2;',
      'const later3 = 3;',
      'personA();',
      'later();',
      'typedNow();',
    ]);
  });

  it('names the step, prompt and agent of every line, across a rename', async () => {
    const r = await cliJson<{ path: string; lines: Line[] }>(['blame', 'src/main.ts'], opts());
    expect(r.path).toBe('src/main.ts');
    expect(r.lines.map((l) => l.line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r.lines.map(({ line: _line, ...rest }) => rest)).toEqual([
      at(null, 'baseline', null), // already there at the first checkpoint
      at(agentEdit, 'agent', 'tool', 'cli'), // the agent's tool call, through the rename
      at(rewrite, 'agent', 'tool', 'cli'), // rewritten by the later step
      at(prompt2, 'person', 'user'), // the person's edit, captured by the second prompt
      at(rewrite, 'agent', 'tool', 'cli'),
      at(null, 'person', null), // changed since the last checkpoint
    ]);
    expect(prompt1.hash).toMatch(/^[0-9a-f]{40}$/);
  });

  it('exports the same attribution as an Agent Trace record', async () => {
    type Conv = { url?: string; contributor: { type: string }; ranges: { start_line: number; end_line: number }[] };
    const rec = await cliJson<{
      version: string;
      id: string;
      timestamp: string;
      files: { path: string; conversations: Conv[] }[];
    }>(['export', '--agent-trace'], opts());
    expect(rec.version).toBe('0.1.0');
    expect(rec.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(rec.timestamp))).toBe(false);
    // app.ts was moved away: only the file as it is now is attributed.
    expect(rec.files.map((f) => f.path)).toEqual(['src/main.ts']);
    const spans = rec.files[0]!.conversations.map((c) => ({
      url: c.url ?? null,
      type: c.contributor.type,
      ranges: c.ranges.map((r) => [r.start_line, r.end_line]),
    }));
    const url = (s: Step) => `retrace://sessions/${s.session}/messages/${s.message}`;
    expect(spans).toEqual([
      { url: url(agentEdit), type: 'ai', ranges: [[2, 2]] },
      {
        url: url(rewrite),
        type: 'ai',
        ranges: [
          [3, 3],
          [5, 5],
        ],
      },
      { url: url(prompt2), type: 'human', ranges: [[4, 4]] },
      { url: null, type: 'human', ranges: [[6, 6]] }, // typed since the last checkpoint; line 1 (baseline) is nobody's
    ]);
    const unknown = await runCli(['export', '--agent-trace', '--session', 'nobody', '--json'], opts());
    expect(errorCode(unknown)).toBe('E_UNKNOWN_SESSION');
    expect((await runCli(['export', '--json'], opts())).code).toBe(2);
  });

  it('accepts an absolute path inside the workspace and prints lines for people', async () => {
    const r = await runCli(['blame', join(root, 'src/main.ts')], opts());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(rewrite.hash.slice(0, 7));
    expect(r.stdout).toContain('baseline');
  });

  it('blames along one session, or names the earliest step of any session that has the line', async () => {
    // A second session continues from the newest checkpoint and changes line 1.
    write('src/main.ts', [
      'const other1 = 1;',
      'const agent2 = 2;',
      'const later3 = 3;',
      'personA();',
      'later();',
      'typedNow();',
    ]);
    const other = await step('assistant', 'Other session edits line 1', 'S2');
    const all = await blame('src/main.ts');
    expect(all[0]).toMatchObject(at(other, 'agent', 'assistant', 'cli'));
    expect(all[2]).toMatchObject(at(rewrite, 'agent', 'tool', 'cli')); // older steps still named through S2's chain
    expect(all[5]).toMatchObject(at(other, 'agent', 'assistant', 'cli'));

    // S1 continues after S2 and rewrites line 4. Its checkpoint also captures S2's line 1, yet S2 wrote it:
    // without --session each line names the earliest step of any chain that has it as it is now.
    write('src/main.ts', [
      'const other1 = 1;',
      'const agent2 = 2;',
      'const later3 = 3;',
      'fromS1();',
      'later();',
      'typedNow();',
    ]);
    const s1Again = await step('tool', 'S1 rewrites line 4');
    const merged = await blame('src/main.ts');
    expect(merged[0]).toMatchObject(at(other, 'agent', 'assistant', 'cli'));
    expect(merged[3]).toMatchObject(at(s1Again, 'agent', 'tool', 'cli'));
    expect(merged[1]).toMatchObject(at(agentEdit, 'agent', 'tool', 'cli'));

    // Along S2 only, line 4 is not in S2's chain as it is now: changed since S2's last checkpoint.
    const onlyS2 = await blame('src/main.ts', '--session', 'S2');
    expect(onlyS2[0]).toMatchObject(at(other, 'agent', 'assistant', 'cli'));
    expect(onlyS2[3]).toMatchObject(at(null, 'person', null));
    // Along S1 only, S1's own step captured S2's line 1 (a checkpoint snapshots the whole folder).
    const onlyS1 = await blame('src/main.ts', '--session', 'S1');
    expect(onlyS1[0]).toMatchObject(at(s1Again, 'agent', 'tool', 'cli'));
    expect(onlyS1[3]).toMatchObject(at(s1Again, 'agent', 'tool', 'cli'));
  });

  it('refuses a missing file, a binary file, a path outside and an unknown session with their codes', async () => {
    const missing = await runCli(['blame', 'nope.ts', '--json'], opts());
    expect(missing.code).toBe(1);
    expect(errorCode(missing)).toBe('E_NOT_FOUND');
    expect(missing.stderr).toMatch(/^retrace: .*nope\.ts/);

    writeFileSync(join(root, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0, 1, 2]));
    const binary = await runCli(['blame', 'logo.png', '--json'], opts());
    expect(binary.code).toBe(1);
    expect(errorCode(binary)).toBe('E_BINARY');

    const outside = await runCli(['blame', '../etc/passwd', '--json'], opts());
    expect(errorCode(outside)).toBe('E_PATH_OUTSIDE_WORKSPACE');

    const unknown = await runCli(['blame', 'src/main.ts', '--session', 'nobody', '--json'], opts());
    expect(errorCode(unknown)).toBe('E_UNKNOWN_SESSION');

    const usage = await runCli(['blame', '--json'], opts());
    expect(usage.code).toBe(2);
  });
});

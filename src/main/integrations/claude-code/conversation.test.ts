import { describe, expect, it } from 'vitest';
import { rewindTranscript } from '../../../../test/integrations/claudeTranscript';
import { F1, F2, F2_AGENT, fixture, HAVE_FIXTURES, NO_FIXTURES } from '../../../../test/integrations/fixtures';

/** Tests on the real transcripts in ../shared/fixtures: skipped, saying so, when that folder is absent. */
const itFixtures = it.skipIf(!HAVE_FIXTURES);
if (!HAVE_FIXTURES) it.skip(NO_FIXTURES, () => {});
import { parseConversation } from './conversation';
import { reconstructSteps } from './reconstruct';

const visible = (c: ReturnType<typeof parseConversation>) => c.messages.filter((m) => !m.hidden);

describe('Claude Code transcript → conversation', () => {
  itFixtures('fixture 1 (1.0.98, inline sidechains): main thread only, in chain order, tools summarised', () => {
    const c = parseConversation({ text: fixture(F1) });
    expect(c.sessionId).toBe('fe5e1c67-53e7-4862-81ae-d0e013e3270b');
    expect(c.cwd).toBe('/path/to/Demo');
    expect(c.stats.sidechainLines).toBe(405);
    expect(c.warnings).toEqual([]);
    const roles = c.messages.map((m) => m.role);
    expect(roles.length).toBe(23);
    expect(roles.filter((r) => r === 'user')).toHaveLength(2);
    expect(roles.filter((r) => r === 'tool')).toHaveLength(11);
    expect(roles.filter((r) => r === 'assistant')).toHaveLength(9);
    expect(roles.filter((r) => r === 'system')).toHaveLength(1); // the expanded slash command (isMeta)
    expect(c.messages[0]!.text).toContain('/orchestrator');
    expect(c.messages.at(-4)!.text).toBe('Thanks! Please update CLAUDE.md for current changes');
    // Timestamps never go backwards along the resumed chain.
    const ts = c.messages.map((m) => m.ts);
    expect([...ts].sort()).toEqual(ts);
    // Tool results carry the call's summary.
    const tasks = c.messages.filter((m) => m.meta.tool === 'Task');
    expect(tasks.map((m) => m.text.split('\n')[0])).toEqual([
      'Task Build TODO components',
      'Task Setup Next.js project',
      'Task Create data models',
      'Task Implement state management',
      'Task Create main page integration',
    ]);
    const write = c.messages.find((m) => m.meta.tool === 'Write')!;
    expect(write.meta).toMatchObject({ tool: 'Write', file: 'CLAUDE.md' });
    expect(write.text.split('\n')[0]).toBe('Write CLAUDE.md');
    // Assistant lines of one API response are one message; its tool calls are listed in it.
    const first = c.messages.find((m) => m.role === 'assistant')!;
    expect(first.uuids).toHaveLength(3);
    expect(first.text).toContain('[Glob **/*.md]');
    // Nothing a sub-agent said leaks into the main thread.
    expect(c.messages.some((m) => m.text.includes("I'll create React components for a TODO app"))).toBe(false);
    // Each of the five sub-agents is tied to the Task call that ran it (by its prompt).
    expect(c.subagents).toHaveLength(5);
    expect(c.subagents.every((s) => s.taskToolUseId && c.toolUses.get(s.taskToolUseId)?.name === 'Task')).toBe(true);
  });

  itFixtures(
    'fixture 2 (2.0.55, agent file, file history): counts, merged responses, errors, the sub-agent linked by agentId',
    () => {
      const c = parseConversation({
        text: fixture(F2),
        agents: [{ name: 'agent-c8d9b115.jsonl', text: fixture(F2_AGENT) }],
      });
      expect(c.sessionId).toBe('a7da6a22-facc-4fcd-8bab-f83c87862004');
      expect(c.cwd).toBe('/src/deep-manifest');
      expect(c.title).toBe("It's been a while - I see that I have pending changes, examine them, add and co…");
      const count = (r: string) => c.messages.filter((m) => m.role === r).length;
      expect(c.messages).toHaveLength(225);
      expect([count('user'), count('system'), count('tool'), count('assistant')]).toEqual([9, 5, 108, 103]);
      expect(c.messages.every((m) => !m.hidden)).toBe(true);
      const merged = c.messages.find((m) => m.text.startsWith("I'll examine the pending changes"))!;
      expect(merged.text).toBe(
        "I'll examine the pending changes in your repository.\n\n[Bash git status]\n\n[Bash git diff]\n\n[Bash git diff --cached]",
      );
      expect(c.messages.find((m) => m.meta.command === 'pytest')!.text).toMatch(
        /^Bash pytest \(error\)\nExit code 127/,
      );
      const edits = c.messages.filter((m) => m.meta.tool === 'Edit');
      expect(edits).toHaveLength(20);
      expect(edits[0]!.meta.file).toBe('.gitignore');
      expect(c.subagents).toHaveLength(1);
      expect(c.subagents[0]).toMatchObject({ agentId: 'c8d9b115' });
      expect(c.toolUses.get(c.subagents[0]!.taskToolUseId!)?.name).toBe('Task');
      expect(c.messages.some((m) => m.text.includes('explore the deep-manifest codebase to understand the ZIP'))).toBe(
        false,
      );
      expect(c.snapshots.length).toBeGreaterThan(5);
    },
  );

  it('follows the branch resume would pick, keeps the abandoned one hidden, skips unknown and torn lines', () => {
    const c = parseConversation({ text: rewindTranscript('/w') });
    expect(c.leafUuid).toBe('a7b');
    expect(c.title).toBe('Counting files');
    expect(c.mainChain.map((l) => l.uuid)).toEqual([
      'u1',
      'a1',
      'a1b',
      'r1',
      'a2',
      'u3',
      'a5',
      'r3',
      'a6',
      'r5',
      'a7a',
      'a7b',
    ]);
    expect(visible(c).map((m) => [m.role, m.text.split('\n')[0]])).toEqual([
      ['user', 'Create a.txt'],
      ['assistant', 'Creating it.'],
      ['tool', 'Write a.txt'],
      ['assistant', 'Done.'],
      ['user', 'Make it three instead'],
      ['assistant', '[Task Write b.txt]'],
      ['tool', 'Task Write b.txt'],
      ['assistant', '[Edit a.txt]'],
      ['tool', 'Edit a.txt'],
      ['assistant', 'Three\n\nit is.'.split('\n')[0]],
    ]);
    expect(visible(c).at(-1)!.text).toBe('Three\n\nit is.');
    expect(visible(c).at(-1)!.meta.sourceId).toBe('a7b');
    // The abandoned branch: hidden, in time order, before the prompt that replaced it.
    const all = c.messages.map((m) => `${m.hidden ? 'H' : 'V'} ${m.text.split('\n')[0]}`);
    expect(all.slice(4, 9)).toEqual([
      'H Make it two',
      'H [Edit a.txt]',
      'H Edit a.txt',
      'H Now it says two.',
      'V Make it three instead',
    ]);
    expect(c.messages.some((m) => m.text.includes('SIDECHAIN-ONLY'))).toBe(false);
    expect(c.stats).toMatchObject({
      truncatedLast: true,
      skippedByType: { 'x-future-record': 2 },
      hiddenLines: 4,
      sidechainLines: 4,
    });
    expect(c.warnings.join('\n')).toMatch(/skipped 2 line\(s\) of unknown type 'x-future-record'/);
    expect(c.warnings.join('\n')).toMatch(/last line is incomplete/);
  });

  it('one malformed line in the middle costs that line only', () => {
    const t = rewindTranscript('/w').split('\n');
    t.splice(3, 0, '{ not json');
    const c = parseConversation({ text: t.join('\n') });
    expect(c.stats.malformed).toBe(1);
    expect(c.mainChain).toHaveLength(12);
  });
});

describe('per-step file states', () => {
  it('rebuilds each step of the resumed branch; the abandoned edit is not applied; sub-agent edits land at their Task', () => {
    const c = parseConversation({ text: rewindTranscript('/w') });
    const r = reconstructSteps(c);
    const at = (text: string) => r.checkpoints.find((cp) => c.messages[cp.messageIndex]!.text.startsWith(text))!;
    expect(r.checkpoints.map((cp) => c.messages[cp.messageIndex]!.text.split('\n')[0])).toEqual([
      'Create a.txt',
      'Write a.txt',
      'Make it three instead',
      'Task Write b.txt',
      'Edit a.txt',
    ]);
    expect(Object.fromEntries(at('Create a.txt').states)).toEqual({ 'a.txt': null, 'b.txt': null });
    expect(Object.fromEntries(at('Write a.txt').states)).toEqual({ 'a.txt': 'one\n', 'b.txt': null });
    expect(Object.fromEntries(at('Task Write b.txt').states)).toEqual({ 'a.txt': 'one\n', 'b.txt': 'bee\n' });
    expect(at('Task Write b.txt').rebuilt).toEqual(['b.txt']);
    expect(Object.fromEntries(at('Edit a.txt').states)).toEqual({ 'a.txt': 'three\n', 'b.txt': 'bee\n' });
    expect(r.drift).toEqual([]);
  });

  itFixtures(
    'fixture 2: every edit replays onto the state rebuilt so far (no drift), paths outside the workspace are listed',
    () => {
      const c = parseConversation({ text: fixture(F2) });
      const r = reconstructSteps(c);
      expect(r.drift).toEqual([]);
      expect(r.touched).toEqual([
        '.gitignore',
        'deep_manifest/deep_manifest.py',
        'tests/test_integration.py',
        'tests/test_unit.py',
      ]);
      expect(r.outside).toEqual(['/home/cboos/.claude/plans/humble-doodling-wolf.md']);
      // Each Edit step holds exactly what the transcript says: originalFile with old_string replaced by new_string.
      let checked = 0;
      for (const cp of r.checkpoints) {
        const m = c.messages[cp.messageIndex]!;
        if (m.meta.tool !== 'Edit') continue;
        const res = c.toolResults.find((x) => x.toolUseId === m.toolUseId)!.result as Record<string, string>;
        const after = res.originalFile!.replace(res.oldString!, res.newString!);
        expect(cp.states.get(m.meta.file!)).toBe(after);
        expect(cp.rebuilt).toEqual([m.meta.file]);
        checked++;
      }
      expect(checked).toBe(20);
    },
  );

  itFixtures('fixture 1: each Task step holds the files its sub-agent wrote, Write content verbatim', () => {
    const c = parseConversation({ text: fixture(F1) });
    const r = reconstructSteps(c);
    expect(r.drift).toEqual([]);
    const byTask = new Map(r.checkpoints.map((cp) => [c.messages[cp.messageIndex]!.text.split('\n')[0], cp]));
    expect(byTask.get('Task Build TODO components')!.rebuilt.sort()).toEqual([
      'components/AddTodo.tsx',
      'components/Filter.tsx',
      'components/TodoItem.tsx',
      'components/TodoList.tsx',
      'components/index.ts',
    ]);
    expect(byTask.get('Task Create data models')!.rebuilt).toHaveLength(7);
    const claude = byTask.get('Write CLAUDE.md')!;
    const write = [...c.toolUses.values()].find((u) => u.name === 'Write' && u.summary.file === 'CLAUDE.md')!;
    expect(claude.states.get('CLAUDE.md')).toBe((write.input as { content: string }).content);
    // Before the session the files it created did not exist.
    expect(r.checkpoints[0]!.states.get('CLAUDE.md')).toBeNull();
  });

  it('an Edit whose old string is not found verbatim (Claude Code normalised quotes) is replayed from its structuredPatch', () => {
    const cwd = '/w';
    const base = { isSidechain: false, cwd, sessionId: 's1' };
    const lines = [
      {
        ...base,
        parentUuid: null,
        type: 'user',
        message: { role: 'user', content: 'fix' },
        uuid: 'p1',
        timestamp: '2025-01-01T00:00:00.000Z',
      },
      {
        ...base,
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
              input: { file_path: '/w/q.txt', old_string: 'say "hi"', new_string: 'say "bye"' },
            },
          ],
        },
        uuid: 'a1',
        timestamp: '2025-01-01T00:00:01.000Z',
      },
      {
        ...base,
        parentUuid: 'a1',
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
        toolUseResult: {
          filePath: '/w/q.txt',
          oldString: 'say "hi"',
          newString: 'say "bye"',
          originalFile: 'one\nsay “hi”\nthree\n',
          structuredPatch: [
            {
              oldStart: 1,
              oldLines: 3,
              newStart: 1,
              newLines: 3,
              lines: [' one', '-say “hi”', '+say “bye”', ' three'],
            },
          ],
        },
        uuid: 'r1',
        timestamp: '2025-01-01T00:00:02.000Z',
      },
    ];
    const c = parseConversation({ text: lines.map((l) => JSON.stringify(l)).join('\n') + '\n' });
    const r = reconstructSteps(c);
    expect(r.checkpoints.map((cp) => cp.states.get('q.txt'))).toEqual([
      'one\nsay “hi”\nthree\n',
      'one\nsay “bye”\nthree\n',
    ]);
    expect(r.checkpoints[1]!.rebuilt).toEqual(['q.txt']);
  });

  it('file-history backups give the state at a prompt when the transcript lacks it', () => {
    const cwd = '/w';
    const ctx = { sessionId: 's1', cwd };
    const lines = [
      JSON.stringify({
        type: 'file-history-snapshot',
        messageId: 'p1',
        snapshot: { messageId: 'p1', trackedFileBackups: {}, timestamp: 't' },
        isSnapshotUpdate: false,
      }),
      JSON.stringify({
        parentUuid: null,
        isSidechain: false,
        cwd,
        sessionId: 's1',
        type: 'user',
        message: { role: 'user', content: 'edit it' },
        uuid: 'p1',
        timestamp: '2025-01-01T00:00:00.000Z',
      }),
      JSON.stringify({
        parentUuid: 'p1',
        isSidechain: false,
        cwd,
        sessionId: 's1',
        type: 'assistant',
        message: {
          id: 'm1',
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 't1',
              name: 'Edit',
              input: { file_path: '/w/x.md', old_string: 'old', new_string: 'new' },
            },
          ],
        },
        uuid: 'a1',
        timestamp: '2025-01-01T00:00:01.000Z',
      }),
      JSON.stringify({
        type: 'file-history-snapshot',
        messageId: 'a1',
        snapshot: {
          messageId: 'p1',
          trackedFileBackups: { 'x.md': { backupFileName: 'abcd@v1', version: 1, backupTime: 't' } },
          timestamp: 't',
        },
        isSnapshotUpdate: true,
      }),
      // an old transcript: the Edit result has no originalFile
      JSON.stringify({
        parentUuid: 'a1',
        isSidechain: false,
        cwd,
        sessionId: 's1',
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
        uuid: 'r1',
        timestamp: '2025-01-01T00:00:02.000Z',
      }),
    ];
    void ctx;
    const c = parseConversation({ text: lines.join('\n') + '\n' });
    const withBackup = reconstructSteps(c, { readBackup: (n) => (n === 'abcd@v1' ? 'an old line\n' : undefined) });
    expect(withBackup.checkpoints.map((cp) => cp.states.get('x.md'))).toEqual(['an old line\n', 'an new line\n']);
    expect(withBackup.checkpoints[1]!.rebuilt).toEqual(['x.md']);
    const without = reconstructSteps(c, { readBackup: () => undefined });
    expect(without.checkpoints[1]!.missing).toEqual(['x.md']);
    expect(without.checkpoints[1]!.states.has('x.md')).toBe(false);
    expect(without.warnings.join()).toMatch(/1 file-history backup/);
  });

  it('a slash command reads as typed, its caveat and output without their markup or colour codes', () => {
    let n = 0;
    const line = (content: string, extra: object = {}) =>
      JSON.stringify({
        type: 'user',
        uuid: `u${++n}`,
        parentUuid: n === 1 ? null : `u${n - 1}`,
        sessionId: 's',
        cwd: '/w',
        timestamp: `2026-01-01T00:00:0${n}.000Z`,
        message: { role: 'user', content },
        ...extra,
      });
    const text = [
      line('<local-command-caveat>Caveat: generated while running local commands.</local-command-caveat>', {
        isMeta: true,
      }),
      line(
        '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>',
      ),
      line('<local-command-stdout>Set model to \u001b[1mopus\u001b[22m</local-command-stdout>'),
      line('<local-command-stdout></local-command-stdout>'),
      line('<local-command-stderr>Error: no such thing</local-command-stderr>'),
    ].join('\n');
    const c = parseConversation({ text });
    expect(c.messages.map((m) => [m.role, m.text])).toEqual([
      ['system', 'Caveat: generated while running local commands.'],
      ['user', '/model opus'],
      ['system', 'Set model to opus'],
      ['system', '(no output)'],
      ['system', 'Error: no such thing'],
    ]);
  });
});

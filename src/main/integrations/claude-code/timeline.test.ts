/**
 * The timeline rule of docs/formats.md, one synthetic shape at a time: the newest user/assistant line is the
 * leaf whatever progress lines follow it; sibling calls of one response, their results and their edits are
 * on the timeline; the pre-compaction part stays; only a re-sent prompt's abandoned branch is hidden.
 */
import { describe, expect, it } from 'vitest';
import {
  compaction,
  dagCycle,
  historyDelta,
  newerVersion,
  parallelCalls,
  rewindAfterParallel,
  Shape,
} from '../../../../test/integrations/claudeShapes';
import { parseConversation } from './conversation';
import { reconstructSteps } from './reconstruct';

const W = '/w';
const parse = (s: Shape) => parseConversation({ text: s.text() });
const shown = (c: ReturnType<typeof parse>) => c.messages.filter((m) => !m.hidden).map((m) => m.text.split('\n')[0]);
const editStatus = (c: ReturnType<typeof parse>, opts = {}) =>
  Object.fromEntries(
    reconstructSteps(c, opts).edits.map((e) => [e.path, e.reason ? `${e.status}: ${e.reason}` : e.status]),
  );

describe('timeline: parallel tool calls', () => {
  for (const trailing of [false, true]) {
    it(`both calls, both results and the final reply are shown${trailing ? ', with a Stop hook progress line after it' : ''}`, () => {
      const c = parse(parallelCalls(W, trailing));
      expect(c.leafUuid).toBe('a3');
      expect(c.hiddenLines.size).toBe(0);
      expect(shown(c)).toEqual(['Write x and y', '[Write x.txt]', 'Write x.txt', 'Write y.txt', 'Both written.']);
      expect(editStatus(c)).toEqual({ 'x.txt': 'rebuilt', 'y.txt': 'rebuilt' });
      expect(c.warnings).toEqual([]);
    });
  }
});

describe('timeline: compaction', () => {
  for (const present of [true, false]) {
    it(`the pre-compaction part stays the conversation (logical parent ${present ? 'in' : 'absent from'} the file); the summary is a system note`, () => {
      const c = parse(compaction(W, present));
      expect(c.hiddenLines.size).toBe(0);
      expect(shown(c)).toEqual([
        'Start the notes',
        '[Write notes.md]',
        'Write notes.md',
        'Notes started.',
        'Conversation compacted',
        'This session is being continued from a previous conversation. Summary: notes started.',
        'Add a line',
        'Added.',
      ]);
      const summary = c.messages.find((m) => m.text.startsWith('This session'))!;
      expect(summary.role).toBe('system');
      expect(c.title).toBe('Start the notes');
      expect(editStatus(c)).toEqual({ 'notes.md': 'rebuilt' });
    });
  }

  it('a file that starts at a compaction is titled by the first typed prompt, never by the summary', () => {
    const s = compaction(W, false);
    s.lines.splice(0, 4); // the pre-compaction part is not in this file at all
    const c = parse(s);
    expect(c.title).toBe('Add a line');
  });
});

describe('timeline: rewinds', () => {
  it('a re-sent prompt hides only the abandoned branch; the parallel sibling result stays', () => {
    const c = parse(rewindAfterParallel(W));
    expect(c.leafUuid).toBe('a6');
    expect(Object.fromEntries(c.hiddenLines)).toEqual({ u2: 'rewind', a4: 'rewind', r4: 'rewind', a5: 'rewind' });
    expect(shown(c)).toEqual([
      'Write a and b',
      '[Write a.txt]',
      'Write a.txt',
      'Write b.txt',
      'Wrote both.',
      'No, leave a; change nothing',
      'Leaving everything as it is.',
    ]);
    expect(editStatus(c)).toEqual({
      'a.txt': 'rebuilt',
      'b.txt': 'rebuilt',
      '/w/a.txt': 'hidden: on a rewound branch',
    });
  });
});

describe('timeline: odd graphs and records', () => {
  it('dag_cycle: lines whose parents point at each other are cut with a warning, never hang, never hide the conversation', () => {
    const c = parse(dagCycle(W));
    expect(c.warnings.join('\n')).toMatch(/dag_cycle: the parentUuid links of 1 group\(s\) of lines form a cycle/);
    expect(c.leafUuid).toBe('a1');
    expect(shown(c)).toContain('Hi.');
    expect([...c.hiddenLines.values()].filter((r) => r === 'rewind')).toEqual([]);
  });

  it('file-history-delta backups rebuild an edit the transcript alone cannot; not an unknown type', () => {
    const c = parse(historyDelta(W));
    expect(c.warnings).toEqual([]);
    expect(c.snapshots).toEqual([{ messageId: 'u1', backups: new Map([['n.txt', '5f1e0a9b3c2d4e6f@v1']]) }]);
    const readBackup = (n: string) => (n === '5f1e0a9b3c2d4e6f@v1' ? 'one\n' : undefined);
    expect(editStatus(c, { readBackup })).toEqual({ 'n.txt': 'rebuilt' });
    const r = reconstructSteps(c, { readBackup });
    expect(r.checkpoints.at(-1)!.states.get('n.txt')).toBe('two\n');
    expect(editStatus(c, {})['n.txt']).toMatch(/^missing: the content before the edit is not known/);
  });

  it('a version newer than any known one imports with a warning saying so', () => {
    const c = parse(newerVersion(W));
    expect(shown(c)).toEqual(['Hello from the future', 'Hi.']);
    expect(c.warnings).toEqual([
      expect.stringMatching(/written by Claude Code 9\.4\.0, newer than any version this importer knows/),
    ]);
  });

  it('known non-conversation records are no unknown-type warnings; commands read as typed; no ANSI codes', () => {
    const s = new Shape(W, '2.1.114');
    for (const type of ['queue-operation', 'permission-mode', 'last-prompt', 'pr-link', 'summary', 'custom-title'])
      s.record({ type, sessionId: 'x' });
    s.prompt(
      'u0',
      null,
      '<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>',
    );
    s.prompt(
      'u1',
      'u0',
      '<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>src</command-args>',
    );
    s.call('a1', 'u1', 'msg_1', 'toolu_b', 'Bash', { command: 'ls' });
    s.result('r1', 'a1', 'toolu_b', '\x1b[32mgreen\x1b[0m ok', { stdout: 'x' });
    const c = parse(s);
    expect(c.warnings).toEqual([]);
    expect(c.title).toBe('/review src');
    expect(shown(c)).toEqual(['/clear', '/review src', '[Bash ls]', 'Bash ls']);
    expect(c.messages.at(-1)!.text).toBe('Bash ls\ngreen ok');
    expect(c.messages.at(-1)!.meta.toolCalls?.[0]?.output).toBe('green ok'); // the Message view's output too
  });
});

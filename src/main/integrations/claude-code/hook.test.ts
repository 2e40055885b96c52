import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { line as rawLine, text, toolResult, toolUse } from '../../../../test/integrations/claudeTranscript';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { lastAssistantReply, planRecord } from './hook';

afterAll(cleanupTempDirs);

const ctx = { sessionId: 's', cwd: '/w' };
const line = (spec: Parameters<typeof rawLine>[0]) => rawLine(spec, ctx);
const t = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s)).toISOString();

function transcript(lines: string[]): string {
  const file = join(tempDir(), 's.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** A finished first turn, then a second prompt whose tool call has run but whose reply is not written yet. */
const secondTurnSoFar = (): string[] => [
  line({ type: 'user', uuid: 'p0', parent: null, ts: t(0), content: 'first' }),
  line({ type: 'assistant', uuid: 'x0', parent: 'p0', ts: t(1), apiId: 'm0', content: text('old reply') }),
  line({ type: 'user', uuid: 'p1', parent: 'x0', ts: t(2), content: 'second' }),
  line({
    type: 'assistant',
    uuid: 'a1',
    parent: 'p1',
    ts: t(3),
    apiId: 'm1',
    content: toolUse('tu', 'Bash', { command: 'ls' }),
  }),
  line({ type: 'user', uuid: 'r1', parent: 'a1', ts: t(4), content: toolResult('tu', 'ok') }),
];

describe('hook helpers', () => {
  it('a PostToolUse message carries the call for the Message region: a command and what it printed, an edit as a patch', () => {
    const bash = planRecord({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_use_id: 'tu1',
      cwd: '/w',
      tool_input: { command: 'npm test' },
      tool_response: { stdout: '3 passing', stderr: 'warn: slow', interrupted: false },
    });
    expect(bash!.meta.toolCalls).toEqual([
      { id: 'tu1', name: 'Bash', input: 'npm test', output: '3 passing\nwarn: slow' },
    ]);
    const edit = planRecord({
      hook_event_name: 'PostToolUse',
      tool_name: 'Edit',
      tool_use_id: 'tu2',
      cwd: '/w',
      tool_input: { file_path: '/w/a.js', old_string: 'a', new_string: 'b' },
      tool_response: {
        filePath: '/w/a.js',
        structuredPatch: [{ oldStart: 3, oldLines: 1, newStart: 3, newLines: 1, lines: ['-a', '+b'] }],
      },
    });
    expect(edit!.meta.toolCalls).toEqual([{ id: 'tu2', name: 'Edit', patch: '@@ -3,1 +3,1 @@\n-a\n+b' }]);
  });

  it("the final reply: this turn's text lines of one response, joined; sidechains and tool results skipped", () => {
    const file = transcript([
      ...secondTurnSoFar(),
      line({ type: 'assistant', uuid: 'a2', parent: 'r1', ts: t(5), apiId: 'm2', content: text('New') }),
      line({
        type: 'assistant',
        uuid: 's1',
        parent: null,
        ts: t(6),
        apiId: 'ms',
        sidechain: true,
        content: text('sub-agent'),
      }),
      line({ type: 'assistant', uuid: 'a3', parent: 'a2', ts: t(7), apiId: 'm2', content: text('reply.') }),
    ]);
    expect(lastAssistantReply(file)).toEqual({ text: 'New\n\nreply.', uuid: 'a3' });
  });

  it("never the previous turn's reply when this turn's is not written yet", () => {
    const file = transcript([...secondTurnSoFar()]);
    expect(lastAssistantReply(file)).toBeNull();
    expect(lastAssistantReply('/no/such/transcript.jsonl')).toBeNull();
  });

  it('what each event records', () => {
    expect(planRecord({ hook_event_name: 'UserPromptSubmit', prompt: 'hi' })).toMatchObject({
      role: 'user',
      text: 'hi',
    });
    expect(
      planRecord({ hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: '/w/a' } }),
    ).toBeNull();
    expect(
      planRecord({
        hook_event_name: 'PostToolUse',
        tool_name: 'MultiEdit',
        cwd: '/w',
        tool_use_id: 'toolu_1',
        tool_input: { file_path: '/w/src/a.ts', edits: [] },
      }),
    ).toEqual({
      role: 'tool',
      text: 'MultiEdit src/a.ts',
      meta: {
        tool: 'MultiEdit',
        file: 'src/a.ts',
        sourceId: 'toolu_1',
        toolCalls: [{ id: 'toolu_1', name: 'MultiEdit', input: '{\n  "file_path": "/w/src/a.ts",\n  "edits": []\n}' }],
      },
      file: '/w/src/a.ts',
    });
    expect(
      planRecord({
        hook_event_name: 'PostToolUse',
        tool_name: 'Edit',
        cwd: '/w',
        agent_type: 'Explore',
        tool_input: { file_path: '/w/b' },
      })!.text,
    ).toBe('Edit b (sub-agent Explore)');
    expect(
      planRecord({
        hook_event_name: 'PostToolUse',
        tool_name: 'NotebookEdit',
        cwd: '/w',
        tool_input: { notebook_path: '/w/n.ipynb' },
      }),
    ).toMatchObject({ text: 'NotebookEdit n.ipynb', file: '/w/n.ipynb' });
    expect(planRecord({ hook_event_name: 'Stop' })).toMatchObject({ role: 'assistant' });
    expect(planRecord({ hook_event_name: 'SessionStart' })).toBeNull();
  });
});

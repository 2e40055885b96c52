/**
 * A small synthetic Claude Code 2.1.x transcript with everything the Message region reads (issue 12): a
 * response in three lines (thinking, text, a Bash call) with its model and growing token usage, the Bash
 * call's output, an Edit with the tool's structuredPatch, a Write of a new file, a call interrupted before any
 * result, and an output longer than the details keep. Written from FORMATS.md, not copied from real files.
 */
export const DETAILS_SESSION = '7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
export const LONG_OUTPUT_LENGTH = 70_000;

type Obj = Record<string, unknown>;

export function detailsTranscript(cwd: string): string {
  let clock = Date.UTC(2026, 2, 14, 9, 30, 0);
  let parent: string | null = null;
  let n = 0;
  const lines: Obj[] = [];
  const line = (type: string, body: Obj): void => {
    clock += 1500;
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push({
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd,
      sessionId: DETAILS_SESSION,
      version: '2.1.50',
      type,
      uuid,
      timestamp: new Date(clock).toISOString(),
      ...body,
    });
    parent = uuid;
  };
  const usage = (output: number) => ({
    input_tokens: 12,
    cache_creation_input_tokens: 345,
    cache_read_input_tokens: 6789,
    output_tokens: output,
  });
  const assistant = (id: string, out: number, content: unknown[]) =>
    line('assistant', {
      message: { id, type: 'message', role: 'assistant', model: 'claude-test-1', content, usage: usage(out) },
    });
  const result = (id: string, content: string, report: unknown, isError = false) =>
    line('user', {
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
      toolUseResult: report,
    });

  line('user', { message: { role: 'user', content: 'Run the tests, then fix the greeting' } });
  assistant('msg_details_1', 3, [
    { type: 'thinking', thinking: 'The person wants the tests run first.', signature: 'sig' },
  ]);
  assistant('msg_details_1', 7, [{ type: 'text', text: 'Running the tests.' }]);
  assistant('msg_details_1', 42, [
    { type: 'tool_use', id: 'toolu_bash_1', name: 'Bash', input: { command: 'npm test -- --reporter=dot' } },
  ]);
  lines.at(-1)!.costUSD = 0.0123; // older Claude Code wrote each response's cost
  result('toolu_bash_1', '3 passing\n1 failing: greeting says Helo', {
    stdout: '3 passing\n1 failing: greeting says Helo',
    stderr: '',
    interrupted: false,
  });
  assistant('msg_details_2', 20, [
    {
      type: 'tool_use',
      id: 'toolu_edit_1',
      name: 'Edit',
      input: { file_path: `${cwd}/greet.js`, old_string: "'Helo'", new_string: "'Hello'" },
    },
  ]);
  result('toolu_edit_1', 'The file greet.js has been updated.', {
    filePath: `${cwd}/greet.js`,
    oldString: "'Helo'",
    newString: "'Hello'",
    originalFile: "export const greeting = 'Helo';\n",
    structuredPatch: [
      {
        oldStart: 1,
        oldLines: 1,
        newStart: 1,
        newLines: 1,
        lines: ["-export const greeting = 'Helo';", "+export const greeting = 'Hello';"],
      },
    ],
  });
  assistant('msg_details_3', 15, [
    {
      type: 'tool_use',
      id: 'toolu_write_1',
      name: 'Write',
      input: { file_path: `${cwd}/NOTES.md`, content: '# Notes\nGreeting fixed.\n' },
    },
  ]);
  result('toolu_write_1', 'File created successfully at: NOTES.md', {
    type: 'create',
    filePath: `${cwd}/NOTES.md`,
    content: '# Notes\nGreeting fixed.\n',
    structuredPatch: [],
  });
  assistant('msg_details_4', 9, [
    { type: 'tool_use', id: 'toolu_bash_2', name: 'Bash', input: { command: 'cat big.log' } },
  ]);
  result('toolu_bash_2', 'x'.repeat(LONG_OUTPUT_LENGTH), { stdout: '', stderr: '', interrupted: false });
  assistant('msg_details_5', 5, [
    { type: 'text', text: 'One more check.' },
    { type: 'tool_use', id: 'toolu_bash_3', name: 'Bash', input: { command: 'npm run lint' } },
  ]);
  line('user', { message: { role: 'user', content: 'Stop there, thanks' } });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

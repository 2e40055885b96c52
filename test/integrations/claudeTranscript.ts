/**
 * Claude Code transcripts for tests, written line by line in the shapes FORMATS.md describes (and the shared
 * fixtures show): user / assistant lines with uuid, parentUuid, isSidechain, cwd, sessionId, timestamp.
 */
export interface LineSpec {
  type: 'user' | 'assistant';
  uuid: string;
  parent: string | null;
  ts: string;
  content: unknown;
  /** Assistant: the API response id (lines of one response share it). */
  apiId?: string;
  sidechain?: boolean;
  toolUseResult?: unknown;
  isMeta?: boolean;
  agentId?: string;
}

export function line(spec: LineSpec, ctx: { sessionId: string; cwd: string }): string {
  const base: Record<string, unknown> = {
    parentUuid: spec.parent,
    isSidechain: spec.sidechain === true,
    userType: 'external',
    cwd: ctx.cwd,
    sessionId: ctx.sessionId,
    version: '2.0.55',
    gitBranch: 'main',
  };
  if (spec.agentId) base.agentId = spec.agentId;
  if (spec.type === 'assistant') {
    base.message = {
      model: 'claude-test',
      id: spec.apiId ?? `msg_${spec.uuid}`,
      type: 'message',
      role: 'assistant',
      content: spec.content,
      stop_reason: null,
    };
    base.requestId = `req_${spec.apiId ?? spec.uuid}`;
  } else {
    base.message = { role: 'user', content: spec.content };
    if (spec.isMeta) base.isMeta = true;
    if (spec.toolUseResult !== undefined) base.toolUseResult = spec.toolUseResult;
  }
  base.type = spec.type;
  base.uuid = spec.uuid;
  base.timestamp = spec.ts;
  return JSON.stringify(base);
}

export const text = (t: string) => [{ type: 'text', text: t }];
export const toolUse = (id: string, name: string, input: unknown) => [{ type: 'tool_use', id, name, input }];
export const toolResult = (id: string, content: string, isError = false) => [
  { tool_use_id: id, type: 'tool_result', content, ...(isError ? { is_error: true } : {}) },
];

/**
 * A session with a rewind (the user went back to an earlier message and asked again), a sub-agent on a
 * sidechain, an assistant reply split over two lines, two lines of a type nobody knows, and a torn last line.
 *
 *   u1 "Create a.txt" → a1 Write a.txt "one" → r1 → a2 "Done"
 *     ├─ (abandoned) u2 "Make it two" → a3 Edit one→two → r2 → a4
 *     └─ (resumed)   u3 "Make it three instead" → a5 Task (sidechain writes b.txt) → r3 → a6 Edit one→three → r5 → a7a+a7b
 */
export function rewindTranscript(cwd: string, sessionId = '11111111-2222-4333-8444-555555555555'): string {
  const ctx = { sessionId, cwd };
  const t = (s: number) => new Date(Date.UTC(2025, 0, 2, 10, 0, s)).toISOString();
  const L = (spec: LineSpec) => line(spec, ctx);
  const lines = [
    JSON.stringify({ type: 'summary', summary: 'Counting files', leafUuid: 'a7b' }),
    L({ type: 'user', uuid: 'u1', parent: null, ts: t(0), content: 'Create a.txt' }),
    L({ type: 'assistant', uuid: 'a1', parent: 'u1', ts: t(1), apiId: 'm1', content: text('Creating it.') }),
    L({
      type: 'assistant',
      uuid: 'a1b',
      parent: 'a1',
      ts: t(2),
      apiId: 'm1',
      content: toolUse('t1', 'Write', { file_path: `${cwd}/a.txt`, content: 'one\n' }),
    }),
    L({
      type: 'user',
      uuid: 'r1',
      parent: 'a1b',
      ts: t(3),
      content: toolResult('t1', `File created successfully at: ${cwd}/a.txt`),
      toolUseResult: { type: 'create', filePath: `${cwd}/a.txt`, content: 'one\n', structuredPatch: [] },
    }),
    L({ type: 'assistant', uuid: 'a2', parent: 'r1', ts: t(4), apiId: 'm2', content: text('Done.') }),
    // the abandoned branch
    L({ type: 'user', uuid: 'u2', parent: 'a2', ts: t(10), content: 'Make it two' }),
    L({
      type: 'assistant',
      uuid: 'a3',
      parent: 'u2',
      ts: t(11),
      apiId: 'm3',
      content: toolUse('t2', 'Edit', { file_path: `${cwd}/a.txt`, old_string: 'one', new_string: 'two' }),
    }),
    L({
      type: 'user',
      uuid: 'r2',
      parent: 'a3',
      ts: t(12),
      content: toolResult('t2', 'The file has been updated.'),
      toolUseResult: {
        filePath: `${cwd}/a.txt`,
        oldString: 'one',
        newString: 'two',
        originalFile: 'one\n',
        structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-one', '+two'] }],
      },
    }),
    L({ type: 'assistant', uuid: 'a4', parent: 'r2', ts: t(13), apiId: 'm4', content: text('Now it says two.') }),
    JSON.stringify({ type: 'x-future-record', operation: 'enqueue', timestamp: t(14) }),
    // the resumed branch: back to a2
    L({ type: 'user', uuid: 'u3', parent: 'a2', ts: t(20), content: 'Make it three instead' }),
    L({
      type: 'assistant',
      uuid: 'a5',
      parent: 'u3',
      ts: t(21),
      apiId: 'm5',
      content: toolUse('t3', 'Task', {
        description: 'Write b.txt',
        prompt: 'Write b.txt saying bee',
        subagent_type: 'general-purpose',
      }),
    }),
    L({ type: 'user', uuid: 's1', parent: null, ts: t(22), sidechain: true, content: 'Write b.txt saying bee' }),
    L({
      type: 'assistant',
      uuid: 's2',
      parent: 's1',
      ts: t(23),
      sidechain: true,
      apiId: 'ms2',
      content: toolUse('t4', 'Write', { file_path: `${cwd}/b.txt`, content: 'bee\n' }),
    }),
    L({
      type: 'user',
      uuid: 's3',
      parent: 's2',
      ts: t(24),
      sidechain: true,
      content: toolResult('t4', 'File created'),
      toolUseResult: { type: 'create', filePath: `${cwd}/b.txt`, content: 'bee\n', structuredPatch: [] },
    }),
    L({
      type: 'assistant',
      uuid: 's4',
      parent: 's3',
      ts: t(25),
      sidechain: true,
      apiId: 'ms4',
      content: text('SIDECHAIN-ONLY: wrote b.txt'),
    }),
    L({
      type: 'user',
      uuid: 'r3',
      parent: 'a5',
      ts: t(26),
      content: [{ tool_use_id: 't3', type: 'tool_result', content: [{ type: 'text', text: 'Wrote b.txt' }] }],
      toolUseResult: { content: [{ type: 'text', text: 'Wrote b.txt' }], totalDurationMs: 10 },
    }),
    L({
      type: 'assistant',
      uuid: 'a6',
      parent: 'r3',
      ts: t(27),
      apiId: 'm6',
      content: toolUse('t5', 'Edit', { file_path: `${cwd}/a.txt`, old_string: 'one', new_string: 'three' }),
    }),
    L({
      type: 'user',
      uuid: 'r5',
      parent: 'a6',
      ts: t(28),
      content: toolResult('t5', 'The file has been updated.'),
      toolUseResult: {
        filePath: `${cwd}/a.txt`,
        oldString: 'one',
        newString: 'three',
        originalFile: 'one\n',
        structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-one', '+three'] }],
      },
    }),
    L({ type: 'assistant', uuid: 'a7a', parent: 'r5', ts: t(29), apiId: 'm7', content: text('Three') }),
    L({ type: 'assistant', uuid: 'a7b', parent: 'a7a', ts: t(30), apiId: 'm7', content: text('it is.') }),
    JSON.stringify({ type: 'x-future-record', operation: 'dequeue', timestamp: t(31) }),
  ];
  // A line Claude Code was still writing: no newline, cut mid-way.
  return (
    lines.join('\n') +
    '\n' +
    '{"parentUuid":"a7b","isSidechain":false,"type":"user","message":{"role":"user","content":"half'
  );
}

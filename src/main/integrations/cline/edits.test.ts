import { describe, expect, it } from 'vitest';
import { findClineEdits } from './edits';
import type { ClineMessage } from './uiMessages';

const tool = (ts: number, type: 'say' | 'ask', body: object, partial?: boolean): ClineMessage => ({
  ts,
  type,
  ...(type === 'say' ? { say: 'tool' } : { ask: 'tool' }),
  text: JSON.stringify(body),
  ...(partial ? { partial } : {}),
});
const request = (ts: number, request: string): ClineMessage => ({
  ts,
  type: 'say',
  say: 'api_req_started',
  text: JSON.stringify({ request }),
});
const saved = (path: string, content: string) =>
  `[write_to_file for '/ws/${path}'] Result:\nThe content was successfully saved to ${path}.\n\n<final_file_content path="/ws/${path}">\n${content}\n</final_file_content>\n\nIMPORTANT: …`;

describe('Cline edits in ui_messages', () => {
  it('reads the kind of each edit and the file as saved from the next request', () => {
    const scan = findClineEdits([
      tool(1, 'say', { tool: 'readFile', path: 'a' }),
      tool(2, 'say', { tool: 'newFileCreated', path: 'a.txt', content: 'A\n' }),
      request(3, saved('a.txt', 'A\n')),
      tool(4, 'say', {
        tool: 'editedExistingFile',
        path: 'a.txt',
        diff: '------- SEARCH\nA\n=======\nB\n+++++++ REPLACE\n',
      }),
      tool(5, 'say', { tool: 'editedExistingFile', path: 'b.meta', content: 'guid: 1\n' }),
    ]);
    expect(scan.notApplied).toEqual([]);
    expect(scan.applied.map((e) => [e.ts, e.kind, e.path, e.saved])).toEqual([
      [2, 'create', 'a.txt', 'A\n'],
      [4, 'blocks', 'a.txt', undefined],
      [5, 'write', 'b.meta', undefined],
    ]);
    expect(scan.applied[1]!.blocks).toEqual([{ search: 'A\n', replace: 'B\n' }]);
  });

  it('not applied: denied in the result, answered with feedback, never answered, cut off mid-stream', () => {
    const edit = (ts: number, type: 'say' | 'ask', partial?: boolean) =>
      tool(ts, type, { tool: 'editedExistingFile', path: 'x.ts', content: 'x\n' }, partial);
    const scan = findClineEdits([
      edit(1, 'ask'),
      { ts: 2, type: 'say', say: 'user_feedback', text: 'no' },
      request(
        3,
        "[write_to_file for 'x.ts'] Result:\nThe user denied this operation and provided the following feedback:\n<feedback>\nno\n</feedback>",
      ),
      edit(4, 'ask'),
      { ts: 5, type: 'say', say: 'user_feedback', text: 'not like that' },
      edit(6, 'ask'),
      { ts: 7, type: 'say', say: 'text', text: 'Saved; next…' },
      edit(8, 'say', true),
      edit(9, 'ask'),
      { ts: 10, type: 'ask', ask: 'resume_task' },
    ]);
    expect(scan.applied.map((e) => e.ts)).toEqual([6]);
    expect(scan.notApplied.map((n) => [n.edit.ts, n.reason])).toEqual([
      [1, 'the person rejected the edit'],
      [4, 'the person answered with feedback instead'],
      [8, 'the tool call was cut off while streaming'],
      [9, 'the edit was never approved'],
    ]);
  });
});

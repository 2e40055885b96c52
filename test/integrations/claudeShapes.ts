/**
 * Small synthetic Claude Code 2.1.x transcripts, one per graph shape the importer must get right
 * (docs/formats.md): parallel tool calls with and without a trailing progress line, a compaction with and
 * without its logical parent, a real rewind inside a parallel response, a dag_cycle, file-history-delta,
 * a version newer than any known one. Written from FORMATS.md's description, not copied from real files.
 */
export const SESSION = '0b5d6a52-8a1e-4c55-9a52-5f1d2c3b4a01';

type Obj = Record<string, unknown>;

export class Shape {
  readonly lines: Obj[] = [];
  private clock = Date.UTC(2026, 1, 1, 10, 0, 0);
  constructor(
    readonly cwd: string,
    private readonly version = '2.1.50',
  ) {}

  private base(uuid: string, parent: string | null, type: string): Obj {
    this.clock += 1000;
    return {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: this.cwd,
      sessionId: SESSION,
      version: this.version,
      gitBranch: 'main',
      type,
      uuid,
      timestamp: new Date(this.clock).toISOString(),
    };
  }
  private push(o: Obj): string {
    this.lines.push(o);
    return o.uuid as string;
  }

  prompt(uuid: string, parent: string | null, text: string, extra: Obj = {}): string {
    return this.push({ ...this.base(uuid, parent, 'user'), message: { role: 'user', content: text }, ...extra });
  }
  say(uuid: string, parent: string | null, apiId: string, text: string): string {
    return this.assistant(uuid, parent, apiId, [{ type: 'text', text }]);
  }
  call(uuid: string, parent: string | null, apiId: string, id: string, name: string, input: Obj): string {
    return this.assistant(uuid, parent, apiId, [{ type: 'tool_use', id, name, input }]);
  }
  private assistant(uuid: string, parent: string | null, apiId: string, content: unknown[]): string {
    return this.push({
      ...this.base(uuid, parent, 'assistant'),
      message: { id: apiId, type: 'message', role: 'assistant', model: 'claude-test', content },
      requestId: `req_${apiId}`,
    });
  }
  result(uuid: string, parent: string, id: string, output: string, toolUseResult: unknown, isError = false): string {
    return this.push({
      ...this.base(uuid, parent, 'user'),
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: output, ...(isError ? { is_error: true } : {}) }],
      },
      toolUseResult,
    });
  }
  /** A Write that created `rel` and its result. */
  write(callUuid: string, resultUuid: string, parent: string, apiId: string, id: string, rel: string, content: string) {
    this.call(callUuid, parent, apiId, id, 'Write', { file_path: `${this.cwd}/${rel}`, content });
    return this.result(resultUuid, callUuid, id, `File created successfully at: ${this.cwd}/${rel}`, {
      type: 'create',
      filePath: `${this.cwd}/${rel}`,
      content,
    });
  }
  progress(uuid: string, parent: string, kind = 'hook_progress'): string {
    return this.push({
      ...this.base(uuid, parent, 'progress'),
      data: { type: kind, hookEvent: 'Stop' },
      toolUseID: 'x',
    });
  }
  system(uuid: string, parent: string | null, subtype: string, extra: Obj = {}): string {
    return this.push({ ...this.base(uuid, parent, 'system'), subtype, content: '', level: 'info', ...extra });
  }
  record(o: Obj): void {
    this.lines.push(o);
  }
  text(): string {
    return this.lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  }
}

/**
 * One response with two parallel Writes (two assistant lines sharing message.id, chained, each the parent of
 * its own result), a progress line inside the chain, a final reply, and optionally a Stop hook's progress
 * line after it.
 */
export function parallelCalls(cwd: string, trailingProgress: boolean): Shape {
  const s = new Shape(cwd);
  s.prompt('u1', null, 'Write x and y');
  s.call('a1', 'u1', 'msg_1', 'toolu_x', 'Write', { file_path: `${cwd}/x.txt`, content: 'x\n' });
  s.call('a2', 'a1', 'msg_1', 'toolu_y', 'Write', { file_path: `${cwd}/y.txt`, content: 'y\n' });
  s.result('r1', 'a1', 'toolu_x', 'File created', { type: 'create', filePath: `${cwd}/x.txt`, content: 'x\n' });
  s.result('r2', 'a2', 'toolu_y', 'File created', { type: 'create', filePath: `${cwd}/y.txt`, content: 'y\n' });
  s.progress('p1', 'r2', 'hook_progress');
  s.say('a3', 'p1', 'msg_2', 'Both written.');
  if (trailingProgress) s.progress('p2', 'a3');
  return s;
}

/** Work before a compaction, the boundary (its logical parent in the file or not), the summary, more work. */
export function compaction(cwd: string, logicalParentInFile: boolean): Shape {
  const s = new Shape(cwd);
  s.prompt('u1', null, 'Start the notes');
  s.write('a1', 'r1', 'u1', 'msg_1', 'toolu_n', 'notes.md', '# Notes\n');
  s.say('a2', 'r1', 'msg_2', 'Notes started.');
  s.system('b1', null, 'compact_boundary', {
    logicalParentUuid: logicalParentInFile ? 'a2' : 'gone-0000',
    compactMetadata: { trigger: 'auto', preTokens: 160000 },
    content: 'Conversation compacted',
  });
  s.prompt('sum', 'b1', 'This session is being continued from a previous conversation. Summary: notes started.', {
    isCompactSummary: true,
    isVisibleInTranscriptOnly: true,
  });
  s.prompt('u2', 'sum', 'Add a line');
  s.say('a3', 'u2', 'msg_3', 'Added.');
  return s;
}

/**
 * A parallel response (two Writes), its reply, a prompt whose work the person then abandoned with /rewind
 * (the same parent, a new prompt), and the new prompt's reply.
 */
export function rewindAfterParallel(cwd: string): Shape {
  const s = new Shape(cwd);
  s.prompt('u1', null, 'Write a and b');
  s.call('a1', 'u1', 'msg_1', 'toolu_a', 'Write', { file_path: `${cwd}/a.txt`, content: 'a\n' });
  s.call('a2', 'a1', 'msg_1', 'toolu_b', 'Write', { file_path: `${cwd}/b.txt`, content: 'b\n' });
  s.result('r1', 'a1', 'toolu_a', 'File created', { type: 'create', filePath: `${cwd}/a.txt`, content: 'a\n' });
  s.result('r2', 'a2', 'toolu_b', 'File created', { type: 'create', filePath: `${cwd}/b.txt`, content: 'b\n' });
  s.say('a3', 'r2', 'msg_2', 'Wrote both.');
  s.prompt('u2', 'a3', 'Now change a');
  s.call('a4', 'u2', 'msg_3', 'toolu_e', 'Edit', { file_path: `${cwd}/a.txt`, old_string: 'a', new_string: 'A' });
  s.result('r4', 'a4', 'toolu_e', 'The file has been updated.', {
    filePath: `${cwd}/a.txt`,
    oldString: 'a',
    newString: 'A',
    originalFile: 'a\n',
  });
  s.say('a5', 'r4', 'msg_4', 'Changed a.');
  s.prompt('u3', 'a3', 'No, leave a; change nothing');
  s.say('a6', 'u3', 'msg_5', 'Leaving everything as it is.');
  return s;
}

/** A conversation plus two lines whose parentUuid links point at each other (and are never resolved). */
export function dagCycle(cwd: string): Shape {
  const s = new Shape(cwd);
  s.say('c1', 'c2', 'msg_c1', 'I point at c2');
  s.say('c2', 'c1', 'msg_c2', 'I point at c1');
  s.prompt('u1', null, 'Hello');
  s.say('a1', 'u1', 'msg_1', 'Hi.');
  return s;
}

/** An Edit whose result lacks originalFile: only the file-history-delta backup (≥ 2.1.220) tells the content before. */
export function historyDelta(cwd: string): Shape {
  const s = new Shape(cwd, '2.1.220');
  s.prompt('u1', null, 'Make it two');
  s.record({
    type: 'file-history-delta',
    messageId: 'a1',
    snapshotMessageId: 'u1',
    trackingPath: 'n.txt',
    backup: { backupFileName: '5f1e0a9b3c2d4e6f@v1', version: 1, backupTime: '2026-02-01T10:00:01.000Z' },
  });
  s.call('a1', 'u1', 'msg_1', 'toolu_e', 'Edit', { file_path: `${cwd}/n.txt`, old_string: 'one', new_string: 'two' });
  s.result('r1', 'a1', 'toolu_e', 'The file has been updated.', {
    filePath: `${cwd}/n.txt`,
    oldString: 'one',
    newString: 'two',
  });
  s.say('a2', 'r1', 'msg_2', 'It says two.');
  return s;
}

/** A plain exchange written by a Claude Code version newer than any the importer knows. */
export function newerVersion(cwd: string): Shape {
  const s = new Shape(cwd, '9.4.0');
  s.prompt('u1', null, 'Hello from the future');
  s.say('a1', 'u1', 'msg_1', 'Hi.');
  return s;
}

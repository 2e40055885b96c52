/**
 * A synthetic Claude Code transcript of any size, for the import rows of the bench when ../shared/fixtures is
 * absent (and for tests of long imports). Written line by line, in the shapes the real ones have
 * (FORMATS.md): a user prompt, the assistant's Write or Edit with the tool result Claude Code records
 * (originalFile, oldString/newString, structuredPatch), a Bash call with a long output, and a closing answer —
 * about 45 KB of transcript per checkpoint, as in the real fixture 04. Seeded: the same size gives the same file.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { Prng } from './prng';

export interface SyntheticOptions {
  /** Stop after the turn that reaches this many bytes. */
  bytes: number;
  /** The transcript's workspace (its `cwd`; the files it edits are under it). */
  cwd: string;
  sessionId?: string;
  seed?: number;
}

const WORDS = 'alpha beta gamma delta value index result store cache token parse build write read map list'.split(' ');

/** Write the transcript; returns its size and counts. */
export function writeSyntheticTranscript(
  file: string,
  opts: SyntheticOptions,
): { bytes: number; turns: number; edits: number } {
  const rng = new Prng(opts.seed ?? 15);
  const sessionId = opts.sessionId ?? '5f1c0de0-0000-4000-8000-000000000015';
  const files = new Map<string, string>(); // path → content as the transcript last left it
  const names = Array.from({ length: 60 }, (_, i) => `src/mod${i % 7}/file${i}.ts`);
  let uuidN = 0;
  const uuid = () => `00000000-0000-4000-8000-${(++uuidN).toString(16).padStart(12, '0')}`;
  let t = Date.parse('2026-01-01T00:00:00Z');
  const ts = () => new Date((t += 1000 + rng.int(0, 20_000))).toISOString();
  const sentence = (n: number) => Array.from({ length: n }, () => rng.pick(WORDS)).join(' ');
  const code = (lines: number) =>
    Array.from({ length: lines }, (_, i) => `  const v${i} = ${rng.pick(WORDS)}(${rng.int(0, 999)}); // ${sentence(4)}`)
      .join('\n')
      .concat('\n');

  const fd = openSync(file, 'w');
  let bytes = 0;
  let parent: string | null = null;
  let edits = 0;
  let turns = 0;
  const emit = (type: 'user' | 'assistant', content: unknown, extra: Record<string, unknown> = {}) => {
    const id = uuid();
    const base: Record<string, unknown> = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: opts.cwd,
      sessionId,
      version: '2.1.50',
      gitBranch: 'main',
      type,
      message:
        type === 'user'
          ? { role: 'user', content }
          : { model: 'claude-synthetic', id: `msg_${id}`, type: 'message', role: 'assistant', content },
      uuid: id,
      timestamp: ts(),
      ...extra,
    };
    bytes += writeSync(fd, JSON.stringify(base) + '\n');
    parent = id;
  };
  try {
    while (bytes < opts.bytes) {
      turns++;
      emit('user', `Please ${sentence(12)} (turn ${turns})`);
      const rel = rng.pick(names);
      const filePath = `${opts.cwd}/${rel}`;
      const before = files.get(rel);
      const toolId = `toolu_${turns.toString(36)}w`;
      if (before === undefined || rng.int(0, 9) === 0) {
        const content = `// ${rel}\n${code(rng.int(40, 120))}`;
        emit('assistant', [
          { type: 'text', text: sentence(20) },
          { type: 'tool_use', id: toolId, name: 'Write', input: { file_path: filePath, content } },
        ]);
        const result =
          before === undefined
            ? { type: 'create', filePath, content, structuredPatch: [] }
            : { type: 'update', filePath, content, structuredPatch: [], originalFile: before };
        emit('user', [{ type: 'tool_result', tool_use_id: toolId, content: `File written: ${filePath}` }], {
          toolUseResult: result,
        });
        files.set(rel, content);
      } else {
        const lines = before.split('\n');
        const at = rng.int(1, lines.length - 2);
        const oldString = lines[at]!;
        const newString = `${oldString} // edited in turn ${turns}\n  const extra${turns} = ${rng.int(0, 99)};`;
        const after = before.replace(oldString, newString);
        emit('assistant', [
          { type: 'text', text: sentence(20) },
          {
            type: 'tool_use',
            id: toolId,
            name: 'Edit',
            input: { file_path: filePath, old_string: oldString, new_string: newString, replace_all: false },
          },
        ]);
        emit(
          'user',
          [{ type: 'tool_result', tool_use_id: toolId, content: `The file ${filePath} has been updated.` }],
          {
            toolUseResult: {
              filePath,
              oldString,
              newString,
              originalFile: before,
              structuredPatch: [],
              userModified: false,
              replaceAll: false,
            },
          },
        );
        files.set(rel, after);
      }
      edits++;
      const bashId = `toolu_${turns.toString(36)}b`;
      emit('assistant', [{ type: 'tool_use', id: bashId, name: 'Bash', input: { command: 'npm test' } }]);
      const output = Array.from({ length: rng.int(300, 800) }, () => `  ✓ ${sentence(10)} (${rng.int(1, 99)} ms)`).join(
        '\n',
      );
      emit('user', [{ type: 'tool_result', tool_use_id: bashId, content: output }], {
        toolUseResult: { stdout: output, stderr: '', interrupted: false, isImage: false },
      });
      emit('assistant', [{ type: 'text', text: sentence(rng.int(20, 80)) }]);
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, turns, edits };
}

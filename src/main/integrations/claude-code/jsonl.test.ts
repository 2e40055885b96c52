/** Streaming a transcript reads exactly what reading it whole does, however its lines fall across chunks. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { parseJsonlText, streamJsonl, type JsonlEntry } from './jsonl';

afterAll(cleanupTempDirs);

describe('streamJsonl', () => {
  it('long multi-byte lines across chunks, CRLF, a malformed line and a torn last line: as parseJsonlText', async () => {
    // 1.5 MB of "é→" puts UTF-8 sequences and a line across the 1 MiB chunk boundary.
    const long = JSON.stringify({ type: 'user', text: 'é→'.repeat(300_000) });
    const text = [
      JSON.stringify({ type: 'a' }),
      long,
      '{"type":"crlf"}\r',
      'not json',
      '[1,2]',
      '',
      JSON.stringify({ type: 'b', s: '漢字' }),
      '{"type":"torn',
    ].join('\n');
    const file = join(tempDir(), 't.jsonl');
    writeFileSync(file, text);
    const entries: JsonlEntry[] = [];
    const seen: number[] = [];
    const problems = await streamJsonl(
      file,
      (e) => entries.push(e),
      (n) => seen.push(n),
    );
    const whole = parseJsonlText(text);
    expect(entries).toEqual(whole.entries);
    expect(problems).toEqual({ truncatedLast: true, malformed: [3, 4] });
    expect(whole.malformed).toEqual([3, 4]);
    expect(entries.map((e) => e.data.type)).toEqual(['a', 'user', 'crlf', 'b']);
    expect(seen.at(-1)).toBe(Buffer.byteLength(text));
  });

  it('a file ending with a newline has no torn line; a missing file rejects with ENOENT', async () => {
    const file = join(tempDir(), 'ok.jsonl');
    writeFileSync(file, '{"type":"a"}\n{"type":"b"}\n');
    const entries: JsonlEntry[] = [];
    expect(await streamJsonl(file, (e) => entries.push(e))).toEqual({ truncatedLast: false, malformed: [] });
    expect(entries.map((e) => e.line)).toEqual([0, 1]);
    await expect(streamJsonl(join(tempDir(), 'none.jsonl'), () => {})).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

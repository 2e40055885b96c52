/**
 * newestRecord (reading a JSON-lines file from its end) against readJsonl (reading all of it): the same record,
 * whatever the block size, line lengths, torn or damaged lines, multi-byte text and blank lines.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { prng, testSeed } from '../../../../test/helpers/prng';
import { newestRecord, readJsonl } from './jsonl';

afterAll(cleanupTempDirs);

interface Rec {
  n: number;
  kind: 'a' | 'b';
  text: string;
}

const newestByFullRead = async (file: string, kind: Rec['kind']): Promise<Rec | null> =>
  (await readJsonl<Rec>(file)).records.filter((r) => r.kind === kind).at(-1) ?? null;

describe('newestRecord', () => {
  it('finds what a full read finds, in random files, at every block size', async () => {
    const seed = testSeed(20261206);
    const rng = prng(seed);
    const dir = tempDir('retrace-jsonl-');
    for (let trial = 0; trial < 60; trial++) {
      const file = path.join(dir, `t${trial}.jsonl`);
      writeFileSync(file, '');
      const lines = rng.int(0, 30);
      for (let i = 0; i < lines; i++) {
        const roll = rng.next();
        if (roll < 0.08)
          appendFileSync(file, '{"n": 1, "kind": "a", "te\n'); // damaged mid-file
        else if (roll < 0.12)
          appendFileSync(file, '\n'); // blank
        else if (roll < 0.15)
          appendFileSync(file, '[1,2]\n'); // JSON, not a record
        else {
          const text = 'ü→x'.repeat(rng.int(0, 200)); // multi-byte, lines both shorter and longer than a block
          appendFileSync(file, JSON.stringify({ n: i, kind: rng.next() < 0.3 ? 'a' : 'b', text }) + '\n');
        }
      }
      if (rng.next() < 0.3) appendFileSync(file, '{"n": 99, "kind": "a", "text": "torn'); // a killed append
      for (const block of [1, 7, 64, 1000, 1 << 16])
        for (const kind of ['a', 'b'] as const)
          expect(await newestRecord<Rec>(file, (r) => r.kind === kind, block), `seed ${seed} trial ${trial}`).toEqual(
            await newestByFullRead(file, kind),
          );
    }
  });

  it('a missing file has none; a file without a final newline still gives its last line', async () => {
    const dir = tempDir('retrace-jsonl-');
    expect(await newestRecord(path.join(dir, 'none.jsonl'), () => true)).toBeNull();
    const file = path.join(dir, 'x.jsonl');
    writeFileSync(file, '{"n":1}\n{"n":2}');
    expect(await newestRecord(file, () => true, 3)).toEqual({ n: 2 });
  });
});

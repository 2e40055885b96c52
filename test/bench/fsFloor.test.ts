/**
 * The bench's floor of a restore's writes (bench/fsFloor.ts) must do what each rung says, or its figures mean
 * nothing: every rung leaves exactly the new contents and no side file, and never writes into the old file (a hard
 * link made before keeps the old bytes); `reused` puts back the very files it kept; and the floor row reaches the
 * targets table only as a comparison.
 */
import { linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNGS, writeRung } from '../../bench/fsFloor';
import { judgeTargets } from '../../bench/targets';
import type { BenchResults } from '../../bench/stats';
import { cleanupTempDirs, tempDir } from '../helpers/index';

afterAll(cleanupTempDirs);

const listAll = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

describe('bench/fsFloor.ts', () => {
  for (const rung of RUNGS)
    it(`${rung}: the new contents in place, nothing beside them, the old file untouched`, async () => {
      const root = tempDir();
      mkdirSync(path.join(root, 'a/b'), { recursive: true });
      const rels = ['top.txt', 'a/one.ts', 'a/b/two.md'];
      for (const rel of rels) writeFileSync(path.join(root, rel), `old ${rel}\n`);
      const links = path.join(tempDir(), 'links');
      mkdirSync(links);
      rels.forEach((rel, i) => linkSync(path.join(root, rel), path.join(links, String(i))));
      const before = listAll(root);

      const ms = await writeRung(root, rung, new Map(rels.map((rel) => [rel, Buffer.from(`new ${rel}\n`)])));

      expect(ms).toBeGreaterThan(0);
      for (const rel of rels) expect(readFileSync(path.join(root, rel), 'utf8')).toBe(`new ${rel}\n`);
      rels.forEach((rel, i) => expect(readFileSync(path.join(links, String(i)), 'utf8')).toBe(`old ${rel}\n`));
      expect(listAll(root)).toEqual(before);
      rmSync(`${root}.attic`, { recursive: true, force: true });
    });

  it('reused: the replaced files are kept, and writing their contents back puts those very files back', async () => {
    const root = tempDir();
    const rels = ['one.txt', 'two.txt'];
    for (const rel of rels) writeFileSync(path.join(root, rel), `old ${rel}\n`);
    const ino = (rel: string): number => statSync(path.join(root, rel)).ino;
    const oldInodes = rels.map(ino);
    const contents = (v: string) => new Map(rels.map((rel) => [rel, Buffer.from(`${v} ${rel}\n`)]));

    await writeRung(root, 'reused', contents('new'));
    const newInodes = rels.map(ino);
    await writeRung(root, 'reused', contents('old'));
    expect(rels.map(ino)).toEqual(oldInodes);
    await writeRung(root, 'reused', contents('new'));
    expect(rels.map(ino)).toEqual(newInodes);
    for (const rel of rels) expect(readFileSync(path.join(root, rel), 'utf8')).toBe(`new ${rel}\n`);
    expect(listAll(root)).toEqual(rels);
    rmSync(`${root}.attic`, { recursive: true, force: true });
  });

  it('its row in the targets table is a comparison, kept ÷ raw git restore', () => {
    const r: BenchResults = {
      machine: {} as BenchResults['machine'],
      runs: [
        { files: 1000, operation: 'restore', method: 'raw-git', medianMs: 40, minMs: 40, maxMs: 40, peakRssBytes: 0 },
      ],
      storage: [],
      floor: [{ files: 1000, paths: 97, bytes: 1, ms: { replace: 10, atomic: 12, durable: 25, kept: 30, reused: 8 } }],
    };
    const row = judgeTargets(r).find((t) => t.label.includes('fsFloor'));
    expect(row?.cells).toEqual([{ files: 1000, value: 0.75, unit: '×', met: null }]);
  });
});

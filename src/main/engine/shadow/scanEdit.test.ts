/**
 * A full scan that edits the index's tree (scanEdit.ts) must give exactly the tree and the not-captured list the
 * plain path gives (staging and write-tree). Two shadow repositories of the same folder, one snapshotting with
 * the edit allowed and one without, compared after every round of random changes — of every kind a full scan
 * judges — while the edit's index falls behind and then catches up.
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace } from '../../../../test/helpers';
import { traceSteps } from '../stepTrace';
import { identityOf, nowNs, withFineness } from './fileIdentity';
import { MAX_PATHS } from './scanEdit';
import type { ShadowRepo } from './ShadowRepo';
import { openTemp } from './testSupport';

afterAll(cleanupTempDirs);

const SIZE_CAP = 4096;

/** A small deterministic generator (mulberry32): the same rounds on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const indexOf = (repo: ShadowRepo): Buffer => readFileSync(path.join(repo.gitDir, 'index'));

/** Paths the last scan edit kept from an earlier one without reading them (its pile record's older looks). */
function keptSince(repo: ShadowRepo, sinceNs: bigint): number {
  const state = JSON.parse(readFileSync(path.join(repo.gitDir, 'retrace-scan.json'), 'utf8')) as {
    pile?: { paths: Record<string, [unknown, string] | null> };
  };
  return Object.values(state.pile?.paths ?? {}).filter((e) => e && BigInt(e[1]) < sinceNs).length;
}

/** The file's mtime set back to exactly `mtimeNs` (Node's utimes takes a double: ~100 ns off at today's dates). */
function putMtimeBack(p: string, mtimeNs: bigint): void {
  const ns = `${mtimeNs % 1_000_000_000n}`.padStart(9, '0');
  execFileSync('touch', ['-m', '-d', `@${mtimeNs / 1_000_000_000n}.${ns}`, p]);
}

/** Whether the temp folders' stamps are fine enough (fileIdentity.ts) for a look to be trusted 20 ms later. */
const FINE_STAMPS = ((): boolean => {
  const p = path.join(makeWorkspace({}), 'stamp-probe');
  writeFileSync(p, 'x');
  return withFineness(identityOf(lstatSync(p, { bigint: true })), p).fine === true;
})();

/** A folder of `files` and two shadow repositories of it, each with its first snapshot: one edits, one stages. */
async function twoRepos(files: Record<string, string>, sizeCap?: number) {
  const root = makeWorkspace(files);
  const edit = (await openTemp(root, sizeCap)).repo;
  const plain = (await openTemp(root, sizeCap)).repo;
  await snap(edit, true);
  await snap(plain, false);
  return { root, edit, plain };
}

/** Three scan edits 30 ms apart: a path changed before the first is read, read again past its doubt, then kept. */
async function untilKept(edit: ShadowRepo): Promise<number> {
  let kept = 0;
  for (let i = 0; i < 3; i++) {
    if (i > 0) await sleep(30);
    const sinceNs = nowNs();
    expect((await snap(edit, true)).edited).toBe(true);
    kept = keptSince(edit, sinceNs);
  }
  return kept;
}

async function snap(repo: ShadowRepo, edit: boolean) {
  const { value, steps } = await traceSteps(() => repo.snapshotTree(edit ? { editSmallScans: true } : {}));
  return {
    tree: value.tree,
    notCaptured: value.notCaptured,
    edited: / scan-edit=/.test(` ${steps}`) && !/(^| )(add|write-tree)=/.test(steps),
  };
}

describe('a full scan that edits the index’s tree', () => {
  it('gives the plain path’s tree and not-captured list through random rounds of every kind of change', async () => {
    const files: Record<string, string> = { '.gitignore': '*.log\nbuild/\n', 'tool.sh': '#!/bin/sh\n' };
    for (let i = 0; i < 40; i++) files[`src/d${i % 5}/f${i}.ts`] = `export const v${i} = ${i};\n`;
    const root = makeWorkspace(files);
    symlinkSync('src/d0/f0.ts', path.join(root, 'link'));
    const edit = (await openTemp(root, SIZE_CAP)).repo;
    const plain = (await openTemp(root, SIZE_CAP)).repo;
    await snap(edit, true);
    await snap(plain, false);
    const next = rng(20261202);
    const pick = (): string => `src/d${Math.floor(next() * 5)}/f${Math.floor(next() * 40)}.ts`;
    const changes: ((round: number) => void)[] = [
      (r) => writeFileSync(path.join(root, pick()), `export const edited = ${r};\n`), // content
      (r) => {
        // the same size, the same second as the last snapshot
        const p = path.join(root, pick());
        const was = (() => {
          try {
            return readFileSync(p, 'utf8');
          } catch {
            return 'x\n';
          }
        })();
        writeFileSync(p, was.replace(/\d/, String(r % 10)));
      },
      () => rmSync(path.join(root, pick()), { force: true }), // deleted
      (r) => writeFileSync(path.join(root, `src/d${r % 5}/new${r}.ts`), `new ${r}\n`), // new
      (r) => writeFileSync(path.join(root, `run${r}.log`), 'ignored\n'), // new, ignored
      (r) => {
        mkdirSync(path.join(root, 'build'), { recursive: true });
        writeFileSync(path.join(root, `build/out${r}.js`), 'ignored folder\n');
      },
      (r) => writeFileSync(path.join(root, '.env'), `SECRET=${r}\n`), // hard-excluded
      (r) => chmodSync(path.join(root, 'tool.sh'), r % 2 ? 0o755 : 0o644), // exec bit
      (r) => {
        unlinkSync(path.join(root, 'link'));
        symlinkSync(r % 2 ? 'src/d1' : 'src/d0/f0.ts', path.join(root, 'link')); // retargeted
      },
      (r) => writeFileSync(path.join(root, pick()), 'x'.repeat(SIZE_CAP + 1 + r)), // over the cap
      (r) => writeFileSync(path.join(root, pick()), `export const v = ${r};\n`), // and back under it
      (r) => {
        // the same size and the old mtime put back (only the ctime tells)
        const p = path.join(root, pick());
        try {
          const was = lstatSync(p, { bigint: true });
          writeFileSync(p, readFileSync(p, 'utf8').replace(/\d/, String((r + 1) % 10)));
          putMtimeBack(p, was.mtimeNs);
        } catch {
          // not there this round
        }
      },
      () => {
        // back to what it was at the start, as the index still has it: out of the pile
        const i = Math.floor(next() * 40);
        const rel = `src/d${i % 5}/f${i}.ts`;
        writeFileSync(path.join(root, rel), files[rel]!);
      },
    ];
    let edited = 0;
    let kept = 0;
    for (let round = 0; round < 24; round++) {
      // Every other round waits out the stamps' doubt: the edit may then keep what it read before (scanPile.ts).
      if (round % 2) await sleep(30);
      const roundNs = nowNs();
      const n = 1 + Math.floor(next() * 4);
      for (let k = 0; k < n; k++) changes[Math.floor(next() * changes.length)]!(round);
      const a = await snap(edit, true);
      const b = await snap(plain, false);
      expect(a.tree, `round ${round}`).toBe(b.tree);
      expect(a.notCaptured, `round ${round}`).toEqual(b.notCaptured);
      if (a.edited) edited++;
      if (a.edited) kept += keptSince(edit, roundNs);
    }
    // The edit really ran (and the plain path took over whenever it did not fit).
    expect(edited).toBeGreaterThan(12);
    // …and kept paths it had read before, where the disk's stamps allow it (the next test says so, or is skipped).
    if (FINE_STAMPS) expect(kept).toBeGreaterThan(10);
  });

  it.skipIf(!FINE_STAMPS)(
    'keeps a path it read past its doubt, without reading it again (fine stamps only)',
    async () => {
      const { root, edit } = await twoRepos({ 'a.ts': 'const a = 1;\n', 'b.ts': 'const b = 1;\n' });
      writeFileSync(path.join(root, 'a.ts'), 'const a = 2;\n');
      expect(await untilKept(edit)).toBe(1);
    },
  );

  it('sees a rewrite of a path it kept, of the same size and with its mtime put back', async () => {
    const { root, edit, plain } = await twoRepos({ 'a.ts': 'const a = 1;\n', 'b.ts': 'const b = 1;\n' });
    const a = path.join(root, 'a.ts');
    writeFileSync(a, 'const a = 2;\n');
    await untilKept(edit);
    const was = lstatSync(a, { bigint: true });
    writeFileSync(a, 'const a = 3;\n');
    putMtimeBack(a, was.mtimeNs);
    expect(lstatSync(a, { bigint: true }).mtimeNs).toBe(was.mtimeNs);
    const after = await snap(edit, true);
    expect(after.edited).toBe(true);
    expect(after.tree).toBe((await snap(plain, false)).tree);
  });

  it('reads again what a warm snapshot changed in between, even once it is back as the index has it', async () => {
    const { root, edit, plain } = await twoRepos({ 'a.ts': 'const a = 1;\n', 'b.ts': 'const b = 1;\n' });
    writeFileSync(path.join(root, 'a.ts'), 'const a = 2;\n');
    await untilKept(edit);
    // A hook names b.ts (warm: the last tree edited there), then b.ts goes back unnamed: git lists only a.ts.
    writeFileSync(path.join(root, 'b.ts'), 'const b = 2;\n');
    await edit.snapshotTree({ hintPaths: ['b.ts'] });
    writeFileSync(path.join(root, 'b.ts'), 'const b = 1;\n');
    const after = await snap(edit, true);
    expect(after.edited).toBe(true);
    expect(after.tree).toBe((await snap(plain, false)).tree);
  });

  it('leaves the index alone while the changes are few, and stages them all once they are many', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < MAX_PATHS + 20; i++) files[`f${i}.txt`] = `${i}\n`;
    const { root, edit, plain } = await twoRepos(files);
    const index = indexOf(edit);
    let i = 0;
    // Rounds of 10 edits: the index keeps its entries until more than MAX_PATHS paths differ from it.
    for (; i + 10 <= MAX_PATHS; i += 10) {
      for (let k = i; k < i + 10; k++) writeFileSync(path.join(root, `f${k}.txt`), `edited ${k}\n`);
      const a = await snap(edit, true);
      expect(a.edited).toBe(true);
      expect(a.tree).toBe((await snap(plain, false)).tree);
      expect(indexOf(edit).equals(index)).toBe(true);
    }
    for (let k = i; k < i + 10; k++) writeFileSync(path.join(root, `f${k}.txt`), `edited ${k}\n`);
    const many = await snap(edit, true);
    expect(many.edited).toBe(false);
    expect(many.tree).toBe((await snap(plain, false)).tree);
    expect(indexOf(edit).equals(index)).toBe(false);
    // Caught up: the next change is one path again.
    writeFileSync(path.join(root, 'f0.txt'), 'once more\n');
    const one = await snap(edit, true);
    expect(one.edited).toBe(true);
    expect(one.tree).toBe((await snap(plain, false)).tree);
  });
});

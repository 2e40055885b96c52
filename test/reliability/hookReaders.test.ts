/**
 * I10 in small (the full trial: bench/hook-readers.ts, 1,000 calls at 10,000 files, docs/reliability.md):
 * hook calls checkpoint while a reader loop asks for status and diffs to the files now, as the app does.
 * Every call is recorded or listed as missed with a reason; none is missed; readers never fail.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../helpers/index';
import { runHookReaderTrial } from './hookReaderTrial';

afterAll(cleanupTempDirs);

const CALLS = 30;

describe('hooks while the app reads (I10)', () => {
  it(`${CALLS} hook calls at a 300-file tree while status and working-tree diffs run in a loop`, async () => {
    const spec: Record<string, string> = {};
    for (let i = 0; i < 300; i++) spec[`src/m${i % 12}/f${i}.ts`] = `export const v${i} = ${i};\n`;
    const root = makeWorkspace(spec);
    const editable = Object.keys(spec).slice(0, 40);
    const r = await runHookReaderTrial({
      root,
      home: tempHome(),
      editable,
      calls: CALLS,
      session: '7e1d2c3b-4a59-4e6f-8a7b-0c1d2e3f4a5b',
    });
    console.log(`hooks+readers: ${JSON.stringify(r)}`);
    expect(r.unaccounted, 'every call recorded or marked missed').toBe(0);
    expect(r.missed).toEqual([]);
    expect(r.recorded).toBe(CALLS);
    expect(r.hookExitNonZero).toBe(0);
    expect(r.readerErrors).toEqual([]);
    expect(r.status.n).toBeGreaterThan(0);
    expect(r.diff.n).toBeGreaterThan(0);
  }, 180_000);
});

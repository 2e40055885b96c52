/**
 * When equal stat data proves a file unchanged (I9): on a file system with fine stamps, once its newest stamp is
 * more than FINE_DOUBT_WINDOW_NS older than the look; with whole-second stamps (or elsewhere), DOUBT_WINDOW_NS.
 * A write after the look always moves the stamps: a changed file is never taken for the same, and content
 * decides whenever stat data cannot.
 */
import { statfsSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { objectId } from '../git/looseObject';
import {
  DOUBT_WINDOW_NS,
  FINE_DOUBT_WINDOW_NS,
  inDoubt,
  lstatIdentity,
  nowNs,
  recordedIdentity,
  stillAsExpected,
} from './fileIdentity';

afterAll(cleanupTempDirs);

const FINE_HERE = process.platform === 'linux' && [0xef53, 0x58465342, 0x9123683e, 0xf2f52010, 0x01021994];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the doubt window', () => {
  it('a file written a moment ago on a file system with fine stamps is proven unchanged by stat after 20 ms', async (ctx) => {
    const dir = tempDir();
    if (!FINE_HERE || !FINE_HERE.includes(statfsSync(dir).type))
      ctx.skip('the temporary folder is not on a local Linux file system with nanosecond stamps');
    const abs = path.join(dir, 'f.txt');
    writeFileSync(abs, 'one\n');
    await sleep(Number(FINE_DOUBT_WINDOW_NS / 1_000_000n) + 10);
    const id = (await recordedIdentity(abs))!;
    expect(id.fine).toBe(true);
    const seenAtNs = nowNs();
    expect(inDoubt(id, seenAtNs)).toBe(false);
    expect(inDoubt({ ...id, fine: false }, seenAtNs)).toBe(true); // the 3 s window would have hashed it
    // A plain look does not ask the file system (it is not recorded): taken as coarse, the safe side.
    expect(inDoubt((await lstatIdentity(abs))!, seenAtNs)).toBe(true);
    const expect1 = { blob: objectId('blob', Buffer.from('one\n')), stat: id, seenAtNs };
    expect(await stillAsExpected(abs, await lstatIdentity(abs), expect1)).toBe(true);
    // A same-size rewrite right after the look: its stamps moved, and the content decides.
    writeFileSync(abs, 'two\n');
    expect(await stillAsExpected(abs, await lstatIdentity(abs), expect1)).toBe(false);
  });

  it('whole-second stamps (ext4 in small inodes, or set so) keep the 3 s window', async () => {
    const abs = path.join(tempDir(), 'f.txt');
    writeFileSync(abs, 'x');
    const whole = Math.floor(Date.now() / 1000) - 1;
    utimesSync(abs, whole, whole); // the ctime is now, fine; the mtime a whole second
    const id = (await recordedIdentity(abs))!;
    expect(id.fine).toBe(false);
    expect(inDoubt(id, nowNs())).toBe(true);
    expect(id.mtimeNs >= nowNs() - DOUBT_WINDOW_NS).toBe(true);
  });

  it('a file whose mtime is long past is in no doubt where only its mtime counts (after our own link or rename)', async () => {
    const abs = path.join(tempDir(), 'f.txt');
    writeFileSync(abs, 'x');
    const past = Date.now() / 1000 - 10;
    utimesSync(abs, past, past);
    const id = (await lstatIdentity(abs))!;
    // utimes moved the ctime to now; the mtime alone (ignoreCtime) is long past.
    expect(inDoubt(id, nowNs())).toBe(true);
    expect(inDoubt(id, nowNs(), { ignoreCtime: true })).toBe(false);
  });
});

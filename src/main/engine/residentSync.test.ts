/**
 * The resident `sync -f` shell (residentSync.ts): it syncs, answers each request in order, says false for what
 * it cannot do, and never keeps a finished Node process alive. That the syncfs lands between a restore's writes
 * and its renames is proven from the system calls in test/reliability/durability.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../test/helpers';
import { residentSyncfs } from './residentSync';

afterAll(cleanupTempDirs);

const hasSyncF = process.platform === 'linux' && spawnSync('sync', ['-f', '/']).status === 0;

describe('residentSyncfs', () => {
  it.skipIf(!hasSyncF)('syncs many paths at once, in order, and says false for a path it cannot sync', async () => {
    const dirs = Array.from({ length: 5 }, () => tempDir('retrace-rsync-'));
    expect(await residentSyncfs(dirs)).toBe(true);
    const answers = await Promise.all([
      residentSyncfs([dirs[0]!]),
      residentSyncfs([path.join(dirs[1]!, 'missing', 'deeper')]),
      residentSyncfs([dirs[2]!]),
      residentSyncfs([`${dirs[3]!}/new\nline`]),
    ]);
    expect(answers).toEqual([true, false, true, false]);
  });

  it.skipIf(!hasSyncF)('lets a Node process exit while the shell is idle', () => {
    const file = path.join(tempDir('retrace-rsync-exit-'), 'idle.mts');
    writeFileSync(
      file,
      `import { residentSyncfs } from ${JSON.stringify(path.join(__dirname, 'residentSync.ts'))};
       console.log(await residentSyncfs([${JSON.stringify(tempDir('retrace-rsync-'))}]));`,
    );
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], { encoding: 'utf8', timeout: 20_000 });
    expect(r.stdout.trim(), r.stderr).toBe('true');
    expect(Date.now() - started).toBeLessThan(15_000); // not the 30 s idle timer
  });
});

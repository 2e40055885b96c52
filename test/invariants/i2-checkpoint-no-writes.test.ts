/** I2: checkpointing writes nothing inside the workspace — no renames, no temporary files. */
import { lstatSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, gitManifest, manifestDiff, tempHome, treeManifest } from '../helpers';
import { makeUserProject } from '../cli/fixture';

afterAll(cleanupTempDirs);

/** Every directory's mtime (a file created and removed again, or a rename, moves it) and its entries. */
function dirStamps(root: string, rel = '', out = new Map<string, string>()): Map<string, string> {
  const full = join(root, rel);
  out.set(rel || '.', `${lstatSync(full).mtimeMs} ${readdirSync(full).sort().join('/')}`);
  for (const name of readdirSync(full)) {
    const r = rel ? `${rel}/${name}` : name;
    if (lstatSync(join(root, r)).isDirectory()) dirStamps(root, r, out);
  }
  return out;
}

describe('I2: a checkpoint writes nothing in the workspace', () => {
  it('file contents, modes, mtimes, directory entries and directory mtimes are unchanged', async () => {
    const home = tempHome();
    const root = makeUserProject();
    writeFileSync(join(root, 'big.bin'), Buffer.alloc(3 << 20, 7));
    const files = treeManifest(root, { mtimes: true, dirs: true });
    const dirs = dirStamps(root);
    const gitBefore = gitManifest(root);
    await new Promise((r) => setTimeout(r, 20)); // so a write would show up as a different mtime
    await cliJson(['checkpoint'], { home, cwd: root });
    await cliJson(['message', '--role', 'user', '--text', 'x', '--checkpoint'], { home, cwd: root });
    expect(manifestDiff(files, treeManifest(root, { mtimes: true, dirs: true }))).toEqual([]);
    expect(manifestDiff(dirs, dirStamps(root))).toEqual([]);
    expect(manifestDiff(gitBefore, gitManifest(root))).toEqual([]);
  });
});

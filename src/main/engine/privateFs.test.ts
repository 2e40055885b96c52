import { chmodSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../test/helpers';
import { mkdirPrivate, mkdirPrivateSync, openPrivateHome, writeFilePrivateSync } from './privateFs';

afterAll(cleanupTempDirs);

const mode = (p: string): number => statSync(p).mode & 0o7777;

describe('privateFs', () => {
  it('creates 0700 folders and 0600 files even under umask 000', () => {
    const saved = process.umask(0);
    try {
      const dir = path.join(tempDir(), 'a', 'b');
      mkdirPrivateSync(dir);
      writeFilePrivateSync(path.join(dir, 'f'), 'x');
      expect([mode(path.dirname(dir)), mode(dir), mode(path.join(dir, 'f'))]).toEqual([0o700, 0o700, 0o600]);
    } finally {
      process.umask(saved);
    }
  });

  it('tightens an existing data home of ours, but never a shared sticky folder such as /tmp', () => {
    const home = path.join(tempDir(), 'data');
    mkdirSync(home);
    chmodSync(home, 0o755);
    openPrivateHome(home);
    expect(mode(home)).toBe(0o700);
    const shared = path.join(tempDir(), 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    openPrivateHome(shared);
    expect(mode(shared)).toBe(0o1777);
  });

  it('mkdir -p, sync and async: deep folders made, existing ones kept, a file in the way and /proc refused, never hung', async () => {
    for (const make of [mkdirPrivateSync, mkdirPrivate]) {
      const root = tempDir();
      const deep = path.join(root, 'a', 'b', 'c');
      await make(deep);
      await make(deep); // there already: fine
      expect(statSync(deep).isDirectory()).toBe(true);
      writeFileSync(path.join(root, 'file'), 'x');
      await expect(async () => make(path.join(root, 'file'))).rejects.toMatchObject({ code: 'EEXIST' });
      await expect(async () => make(path.join(root, 'file', 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
      symlinkSync(path.join(root, 'nowhere'), path.join(root, 'dangling'));
      await expect(async () => make(path.join(root, 'dangling', 'sub'))).rejects.toMatchObject({ code: 'ENOENT' });
      // mkdir(2) answers ENOENT under /proc, which exists: Node's own recursive mkdir loops there for ever.
      if (process.platform === 'linux')
        await expect(async () => make('/proc/retrace-no-such/data')).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });
});

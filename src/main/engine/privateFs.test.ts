import { chmodSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../test/helpers';
import { mkdirPrivateSync, openPrivateHome, writeFilePrivateSync } from './privateFs';

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
});

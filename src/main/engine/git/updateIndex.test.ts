/**
 * Staging and scanning under churn (I7): a file an agent deletes or rewrites while git reads it — after git's
 * lstat, before or during its read — does not fail the checkpoint; git's own words (or its death by SIGBUS, for a
 * mapped file cut short) are classified as such, and a killed git's index.lock does not stay behind.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { classifyGitFailure } from './errors';
import { initShadowRepo } from './init';
import { listWorkTreeChanges } from './lsFiles';
import { GitRunner } from './runner';
import { addToIndex } from './updateIndex';

afterAll(cleanupTempDirs);

/** How long each churn test calls git: without the retries, one call in a hundred or so fails here. */
const CHURN_MS = Number(process.env.CHURN_MS ?? 2000);

/** Deletes and writes back the files in a tight loop, in a process of its own, until killed. */
const CHURN = `
const fs = require('node:fs');
const files = JSON.parse(process.argv[1]);
for (let i = 0; ; i++) {
  const f = files[i % files.length];
  try { fs.unlinkSync(f); } catch {}
  fs.writeFileSync(f, Buffer.alloc(256 * 1024, i % 256));
}`;

describe('git under churn', () => {
  it('names a file deleted or cut short while git reads it as churned', () => {
    const e = classifyGitFailure(
      ['update-index', '--add'],
      128,
      'error: open("churn/f214.txt"): No such file or directory\nerror: churn/f214.txt: failed to insert into database\nfatal: Unable to process path churn/f214.txt\n',
    );
    expect([e.kind, e.path]).toEqual(['churned', 'churn/f214.txt']);
    const short = classifyGitFailure(['update-index'], 128, 'error: short read while indexing a b.txt\nfatal: x\n');
    expect([short.kind, short.path]).toEqual(['churned', 'a b.txt']);
  });

  it('stages what is there each time while another process deletes and rewrites the files', async () => {
    const { ws, git, rels, churn } = await churning();
    try {
      const until = Date.now() + CHURN_MS;
      let calls = 0;
      for (; Date.now() < until; calls++) await addToIndex(git, rels);
      expect(calls).toBeGreaterThan(10);
    } finally {
      await stop(churn);
    }
    // A git killed mid-read left no lock behind, and the index holds the files that are there (the churn was
    // stopped between a delete and its write, or not).
    expect(existsSync(`${git.indexPath()}.lock`)).toBe(false);
    await addToIndex(git, rels);
    const there = rels.filter((rel) => existsSync(path.join(ws, rel))).sort();
    expect(there.length).toBeGreaterThanOrEqual(rels.length - 1);
    expect((await git.exec(['ls-files', '-z'])).stdout.toString().split('\0').filter(Boolean)).toEqual(there);
  });

  it('scans again when its ls-files dies of SIGBUS (a racily clean file cut short while git hashed it)', async () => {
    // That race needs a truncation inside one read of microseconds; a git that dies of the very signal on its first
    // run stands for it here (the real git runs after it).
    const bin = tempDir('retrace-bin-');
    const mark = path.join(bin, 'died-once');
    const real = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
    writeFileSync(
      path.join(bin, 'git'),
      `#!/bin/sh\ncase " $* " in *" ls-files "*) [ -e '${mark}' ] || { : > '${mark}'; kill -BUS $$; } ;; esac\nexec '${real}' "$@"\n`,
      { mode: 0o755 },
    );
    const pathBefore = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${pathBefore ?? ''}`;
    try {
      const ws = tempDir('retrace-ws-');
      writeFileSync(path.join(ws, 'new.txt'), 'new\n');
      const dir = tempDir('retrace-git-');
      await initShadowRepo(path.join(dir, 'shadow.git'), path.join(dir, 'hooks'));
      const git = new GitRunner({
        gitDir: path.join(dir, 'shadow.git'),
        workTree: ws,
        hooksDir: path.join(dir, 'hooks'),
      });
      expect((await listWorkTreeChanges(git)).others).toEqual(['new.txt']);
      expect(existsSync(mark)).toBe(true); // the first ls-files did die
    } finally {
      process.env.PATH = pathBefore;
    }
  });
});

/** A repository over a folder of 8 files of 256 KB (git maps them to hash them), churned by another process. */
async function churning(): Promise<{ ws: string; git: GitRunner; rels: string[]; churn: ChildProcess }> {
  const ws = tempDir('retrace-churn-');
  const dir = tempDir('retrace-git-');
  const gitDir = path.join(dir, 'shadow.git');
  await initShadowRepo(gitDir, path.join(dir, 'hooks'));
  const git = new GitRunner({ gitDir, workTree: ws, hooksDir: path.join(dir, 'hooks') });
  mkdirSync(path.join(ws, 'churn'));
  const rels = Array.from({ length: 8 }, (_, i) => `churn/f${i}.txt`);
  for (const rel of rels) writeFileSync(path.join(ws, rel), Buffer.alloc(256 * 1024));
  const files = JSON.stringify(rels.map((r) => path.join(ws, r)));
  const churn = spawn(process.execPath, ['-e', CHURN, files], { stdio: 'ignore' });
  return { ws, git, rels, churn };
}

async function stop(churn: ChildProcess): Promise<void> {
  const exited = new Promise((r) => churn.once('exit', r));
  churn.kill('SIGKILL');
  await exited;
}

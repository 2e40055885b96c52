/**
 * The resident syncfs helper (syncfsHelper.ts): a long-lived host's syncs of a whole file system are made by it,
 * once it is ready, and it answers what the system call answered. Its system calls are watched with strace attached
 * to it: the flush really happens, on the file system asked for, before the answer.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findProgram } from './residentShell';
import { syncFileSystemsOf } from './syncFs';
import { keepSyncfsHelper, syncfsViaHelper } from './syncfsHelper';

const python = process.platform === 'linux' && findProgram('python3', process.env.PATH ?? '') !== null;
const hasStrace = spawnSync('strace', ['-V']).status === 0;
const dir = mkdtempSync(path.join(os.tmpdir(), 'retrace-syncfs-helper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The helper's answer once it has started (python's start takes a moment): null for as long as it is not ready. */
async function whenReady(folders: string[]): Promise<boolean | null> {
  for (let i = 0; i < 200; i++) {
    const answer = await syncfsViaHelper(folders);
    if (answer !== null) return answer;
    await new Promise((r) => setTimeout(r, 25));
  }
  return null;
}

describe.skipIf(!python)('the resident syncfs helper', () => {
  it('serves a long-lived host once ready, with `sync -f` until then, and says when a folder cannot be synced', async () => {
    expect(await syncfsViaHelper([dir]), 'not wanted: the caller runs sync -f').toBeNull();
    keepSyncfsHelper();
    expect(await syncFileSystemsOf([dir]), 'the first call, while it starts').toBe(true);
    expect(await whenReady([dir])).toBe(true);
    expect(await syncfsViaHelper([path.join(dir, 'gone')])).toBe(false);
    expect(await syncFileSystemsOf([dir])).toBe(true);
  });

  it.skipIf(!hasStrace)('makes the syncfs system call on the folder asked for, before it answers', async () => {
    keepSyncfsHelper();
    expect(await whenReady([dir])).toBe(true);
    const pid = spawnSync('pgrep', ['-P', String(process.pid), '-f', 'syncfs = ctypes'])
      .stdout.toString()
      .trim();
    expect(pid, 'the helper runs as a child of this process').toMatch(/^\d+$/);
    const out = path.join(dir, 'trace');
    const tracer = spawn('strace', ['-qq', '-y', '-e', 'trace=syncfs', '-o', out, '-p', pid]);
    // Attached once its first report of a call arrives: ask until one does.
    writeFileSync(path.join(dir, 'written.txt'), 'content\n');
    let answered: boolean | null = null;
    for (let i = 0; i < 100 && !readIfThere(out).includes('syncfs('); i++) {
      answered = await syncfsViaHelper([dir]);
      await new Promise((r) => setTimeout(r, 20));
    }
    tracer.kill('SIGINT');
    await new Promise((r) => tracer.once('close', r));
    expect(answered).toBe(true);
    expect(readIfThere(out)).toMatch(new RegExp(`syncfs\\(\\d+<${dir}>\\) = 0`));
  });
});

function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The shadow repository's object format is pinned to SHA-1, which the engine assumes throughout (40-hex ids,
 * hand-written loose objects and index files). A git whose default is SHA-256 (git 3's plan; here: a `git`
 * on PATH that sets GIT_DEFAULT_HASH=sha256 past our environment scrubbing) still gets a sha1 shadow, and a
 * shadow repository that is sha256 already is refused with a clear code, untouched, never "repaired".
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  cliJson,
  errorCode,
  makeWorkspace,
  runCli,
  shadowDir,
  tempDir,
  tempHome,
  workspaceDataDir,
} from '../helpers';

afterAll(cleanupTempDirs);

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** A PATH whose `git` defaults to SHA-256 object ids. */
function sha256DefaultPath(): string {
  const bin = tempDir('retrace-git3-');
  const wrapper = join(bin, 'git');
  writeFileSync(wrapper, `#!/bin/sh\nGIT_DEFAULT_HASH=sha256 exec ${realGit} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return [bin, process.env.PATH].join(delimiter);
}

function objectFormat(gitDir: string): string {
  return execFileSync(realGit, [`--git-dir=${gitDir}`, 'rev-parse', '--show-object-format'], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();
}

describe('object format', () => {
  it('a git defaulting to sha256 still gets a sha1 shadow repository, and checkpoints and restores work', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'one\n' });
    const opts = { home, cwd: ws, path: sha256DefaultPath() };
    const first = await cliJson<{ hash: string }>(['checkpoint'], opts);
    expect(first.hash).toMatch(/^[0-9a-f]{40}$/);
    expect(objectFormat(shadowDir(home, ws))).toBe('sha1');
    writeFileSync(join(ws, 'a.txt'), 'two\n');
    await cliJson(['checkpoint'], opts);
    await cliJson(['restore', first.hash, '--code'], opts);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('a sha256 shadow repository is refused (E_UNSUPPORTED), left as it was, nothing logged as repaired', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'one\n' });
    await cliJson(['status'], { home, cwd: ws }); // creates the workspace's data folder
    const dataDir = workspaceDataDir(home, ws)!;
    const gitDir = join(dataDir, 'shadow.git');
    rmSync(gitDir, { recursive: true, force: true });
    execFileSync(realGit, ['init', '--bare', '--quiet', '--object-format=sha256', gitDir]);
    const configBefore = readFileSync(join(gitDir, 'config'), 'utf8');
    const r = await runCli(['checkpoint', '--json'], { home, cwd: ws });
    expect(r.code).toBe(1);
    expect(errorCode(r)).toBe('E_UNSUPPORTED');
    expect(r.stderr).toMatch(/sha256/);
    expect(readFileSync(join(gitDir, 'config'), 'utf8')).toBe(configBefore);
    expect(objectFormat(gitDir)).toBe('sha256');
    // status says the same, and nothing was quarantined as damage.
    expect(errorCode(await runCli(['status', '--json'], { home, cwd: ws }))).toBe('E_UNSUPPORTED');
    expect(existsSync(join(dataDir, 'recovery.jsonl'))).toBe(false);
  });
});

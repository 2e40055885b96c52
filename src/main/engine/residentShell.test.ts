/**
 * The resident shell (residentShell.ts) runs a program exactly as a direct start would — the same argument bytes,
 * the same whole environment and nothing of its own, the same folder, stdin, stdout, stderr and exit code — says
 * when nothing ran so the caller can start it itself, fails a request whose shell died under it, and never keeps
 * a finished Node process alive. execGit and syncfs go through it (that the syncfs lands between a restore's
 * writes and its renames is proven from the system calls in test/reliability/durability.test.ts).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../test/helpers';
import { execGit } from './git/exec';
import { gitEnv } from './git/env';
import { GitError } from './git/errors';
import { runResident } from './residentShell';

afterAll(cleanupTempDirs);

const linux = process.platform === 'linux';
const hasSyncF = linux && spawnSync('sync', ['-f', '/']).status === 0;
const shIsDash = linux && path.basename(realpathSync('/bin/sh')) === 'dash';

/** Run `body` (top-level await, runResident imported) in a new Node process, as the CLI would. */
function inNewProcess(body: string, env: NodeJS.ProcessEnv = {}) {
  const file = path.join(tempDir('retrace-rsh-proc-'), 'run.mts');
  writeFileSync(
    file,
    `import { runResident } from ${JSON.stringify(path.join(__dirname, 'residentShell.ts'))};\n${body}`,
  );
  return spawnSync(process.execPath, ['--import', 'tsx', file], {
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, ...env },
  });
}

/** `env -0` output as its sorted variables. */
function sortedEnv(out: Buffer): string[] {
  return out.toString('utf8').split('\0').filter(Boolean).sort();
}

/** What a direct start answers, for comparison. */
function direct(program: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, stdin?: Buffer) {
  const r = spawnSync(program, args, { cwd, env, input: stdin });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!linux)('runResident', () => {
  it('passes every byte of the arguments, the folder, stdin and the whole environment, as a direct start does', async () => {
    const cwd = path.join(tempDir('retrace-rsh-'), `it's a "folder" $HOME \`x\` ü`);
    mkdirSync(cwd);
    const nasty = ["it's", '"q"', '$(touch pwned)', '`id`', 'a\nb', ' lead', '-n', '\\', 'ü→😀', '', '*', ';&|<>'];
    const env = { PATH: process.env.PATH!, ODD: "x'y\nz $PATH", EMPTY: '' };
    const cases: [string, string[], Buffer?][] = [
      ['printf', ['%s\\0', ...nasty]],
      ['pwd', []],
      ['env', ['-0']],
      ['cat', [], Buffer.from([0, 1, 2, 255, 10, 39, 0])],
      ['sh', ['-c', 'echo out; echo err >&2; exit 3']],
    ];
    for (const [program, args, stdin] of cases) {
      const got = await runResident(program, args, { cwd, env, ...(stdin ? { stdin } : {}) });
      const want = direct(program, args, cwd, env, stdin);
      // The environment's order is the shell's (dash exports in its own order): the same variables, byte for byte.
      if (program === 'env') for (const r of [got!, want]) r.stdout = Buffer.from(sortedEnv(r.stdout).join('\0'));
      expect(got, program).toEqual(want);
    }
    // Nothing of the shell ran any word: no file appeared.
    expect(spawnSync('ls', ['-A', cwd]).stdout.toString()).toBe('');
    // `env` saw exactly the caller's environment (no PWD, SHLVL or anything else of the shell's).
    const seen = await runResident('env', [], { cwd, env });
    expect(seen!.stdout.toString().split('\n').filter(Boolean).sort()).toEqual(
      ['EMPTY=', `ODD=x'y`, 'z $PATH', `PATH=${env.PATH}`].sort(),
    );
  });

  it("gives exactly the caller's variables whatever their names: the shell's own (PWD, OLDPWD, PPID, IFS) and names no shell takes", async () => {
    const cwd = tempDir('retrace-rsh-');
    const envs: NodeJS.ProcessEnv[] = [
      {
        PATH: process.env.PATH!,
        PWD: '/not/the/cwd',
        OLDPWD: '/elsewhere',
        PPID: '1',
        IFS: 'x',
        LINENO: '7',
        OPTIND: '3',
        // Variables that steer a shell (start-up file, cd's search path, home, prompt): given, never obeyed.
        ENV: '/nonexistent/env.sh',
        BASH_ENV: '/nonexistent/bash_env.sh',
        CDPATH: '/',
        HOME: '/nonexistent',
        PS4: '$(touch pwned)',
        SHELLOPTS: 'xtrace',
      },
      { PATH: process.env.PATH!, PWD: cwd },
      { PATH: process.env.PATH! },
      { PATH: process.env.PATH!, 'odd.name': 'a', 'with-dash': 'b', '1st': 'c', ENV: '/x', CDPATH: '/' },
    ];
    for (const env of envs) {
      const got = await runResident('env', ['-0'], { cwd, env });
      expect(got?.code, JSON.stringify(env)).toBe(0);
      expect(sortedEnv(got!.stdout), JSON.stringify(env)).toEqual(sortedEnv(direct('env', ['-0'], cwd, env).stdout));
    }
    expect(readdirSync(cwd)).toEqual([]); // PS4's command substitution never ran
  });

  it.skipIf(!shIsDash)('where sh is dash, starts the program itself: no `env` exec in between', () => {
    const bin = tempDir('retrace-rsh-bin-');
    symlinkSync(realpathSync('/bin/true'), path.join(bin, 'true'));
    // The shell's PATH (and the program's) holds `true` and nothing else: no `env` to be found there.
    const body = `process.env.PATH = ${JSON.stringify(bin)};
      const r = await runResident('true', [], { cwd: '/', env: { PATH: ${JSON.stringify(bin)} } });
      console.log(r === null ? 'nothing ran' : r.code);`;
    const oneExec = inNewProcess(body, { RETRACE_SHELL_ENV: undefined });
    expect(oneExec.stdout.trim(), oneExec.stderr).toBe('0');
    // The `env -i` way needs `env` on that PATH: its exec fails, so this test tells the two ways apart.
    const viaEnv = inNewProcess(body, { RETRACE_SHELL_ENV: 'env' });
    expect(viaEnv.stdout.trim(), viaEnv.stderr).toBe('127');
  });

  it('says that nothing ran when the folder or the program is not there, so the caller starts it itself', async () => {
    const env = { PATH: process.env.PATH! };
    const marker = path.join(tempDir('retrace-rsh-'), 'ran');
    const gone = path.join(tempDir('retrace-rsh-'), 'missing');
    expect(await runResident('sh', ['-c', `: > '${marker}'`], { cwd: gone, env })).toBeNull();
    expect(() => readFileSync(marker)).toThrow();
    expect(await runResident('no-such-program-here', [], { cwd: '/', env })).toBeNull();
    expect(await runResident('pwd', ['\0'], { cwd: '/', env })).toBeNull();
  });

  it('answers requests made at once, each its own (or null past the pool: the caller starts those)', async () => {
    const env = { PATH: process.env.PATH! };
    const inputs = Array.from({ length: 10 }, (_, i) => Buffer.from(`request ${i}\n`.repeat(1000 * (i + 1))));
    const answers = await Promise.all(
      inputs.map((stdin) => runResident('sh', ['-c', 'sleep 0.05; cat'], { cwd: '/', env, stdin })),
    );
    const ran = answers.filter((a) => a !== null);
    expect(ran.length).toBe(4); // MAX_SHELLS: the pool never grows past it
    answers.forEach((a, i) => {
      if (a) expect(a.stdout.equals(inputs[i]!)).toBe(true);
    });
  });

  it('fails a request whose shell died under it, and answers the next one from a new shell', async () => {
    const env = { PATH: process.env.PATH! };
    // The program runs in the subshell's place, so its parent is the resident shell itself.
    await expect(runResident('sh', ['-c', 'kill -KILL $PPID; sleep 1'], { cwd: '/', env })).rejects.toThrow(
      /resident shell/,
    );
    expect((await runResident('pwd', [], { cwd: '/', env }))?.stdout.toString()).toBe('/\n');
  });

  it('execGit starts git from a resident shell, not from this process, and answers as before', async () => {
    const repo = tempDir('retrace-rsh-git-');
    expect(spawnSync('git', ['init', '-q', repo]).status).toBe(0);
    // git's parent, read by a shell alias of git's: the resident shell, whose parent is this process.
    const parentOfGit = await execGit(['-c', 'alias.pp=!cut -d" " -f4 /proc/$PPID/stat', 'pp'], { cwd: repo });
    const shellPid = Number(parentOfGit.stdout.toString().trim());
    expect(shellPid).not.toBe(process.pid);
    expect(readFileSync(`/proc/${shellPid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]).toBe(String(process.pid));
    // A failure is classified from git's own stderr and exit code, as from a direct start.
    const failure = await execGit(['rev-parse', '--verify', 'no-such-ref'], { cwd: repo }).catch((e: Error) => e);
    expect(failure).toBeInstanceOf(GitError);
    const expected = direct('git', ['rev-parse', '--verify', 'no-such-ref'], repo, gitEnv());
    expect((failure as GitError).exitCode).toBe(expected.code);
    expect((failure as GitError).stderr).toBe(expected.stderr.toString());
    expect((failure as Error).message).toMatch(/rev-parse.*fatal|Needed a single revision/);
    const blob = await execGit(['hash-object', '--stdin'], { cwd: repo, stdin: Buffer.from([0, 255, 10]) });
    expect(blob.stdout.toString()).toBe(
      direct('git', ['hash-object', '--stdin'], repo, gitEnv(), Buffer.from([0, 255, 10])).stdout.toString(),
    );
  });

  it.skipIf(!hasSyncF)('syncs a file system through `sync -f`, and reports a path it cannot sync', async () => {
    const dir = tempDir('retrace-rsh-sync-');
    expect((await runResident('sync', ['-f', '--', dir], { cwd: '/', env: process.env }))?.code).toBe(0);
    const missing = await runResident('sync', ['-f', '--', path.join(dir, 'nope')], { cwd: '/', env: process.env });
    expect(missing).not.toBeNull();
    expect(missing!.code).not.toBe(0);
  });

  it("removes request folders left by killed processes, never a live process's", () => {
    const dead = spawnSync('true').pid!;
    const left = path.join(os.tmpdir(), `retrace-run-${dead}-test`);
    const live = path.join(os.tmpdir(), `retrace-run-${process.pid}-test`);
    for (const dir of [left, live]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, '1.out'), 'output of a killed run');
    }
    try {
      // A new process makes its own folder, and drops the dead one's on the way.
      const r = inNewProcess(`await runResident('pwd', [], { cwd: '/', env: { PATH: process.env.PATH } });`);
      expect(r.status, r.stderr).toBe(0);
      expect(existsSync(left)).toBe(false);
      expect(readFileSync(path.join(live, '1.out'), 'utf8')).toBe('output of a killed run');
    } finally {
      rmSync(live, { recursive: true, force: true });
      rmSync(left, { recursive: true, force: true });
    }
  });

  it('lets a Node process exit while its shells are idle', () => {
    const started = Date.now();
    const r = inNewProcess(
      `const r = await runResident('pwd', [], { cwd: '/', env: { PATH: process.env.PATH } });
       console.log(r?.stdout.toString().trim());`,
    );
    expect(r.stdout.trim(), r.stderr).toBe('/');
    expect(Date.now() - started).toBeLessThan(15_000); // not the 30 s idle timer
  });
});

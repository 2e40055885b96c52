import { spawn } from 'node:child_process';
import { classifyGitFailure, spawnFailure } from './errors';
import { gitEnv } from './env';

export interface ExecGitOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Bytes fed to git's stdin (path lists are NUL-separated Buffers). */
  stdin?: Buffer | string;
  /** Exit codes that are answers, not failures (e.g. 1 for check-ignore "nothing ignored"). */
  okExitCodes?: readonly number[];
}

export interface ExecGitResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

/**
 * Run git once with an args array (never a shell), optional stdin, and collect stdout as bytes. This is the
 * path for stdin-fed plumbing and for anything whose output must not be decoded (blob contents).
 */
export function execGit(args: readonly string[], opts: ExecGitOptions = {}): Promise<ExecGitResult> {
  const okCodes = opts.okExitCodes ?? [0];
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: opts.cwd,
      env: opts.env ?? gitEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    // git may exit before reading all of stdin (e.g. a bad argument): ignore EPIPE, the exit code tells.
    child.stdin.on('error', () => {});
    child.on('error', (e: NodeJS.ErrnoException) => reject(spawnFailure(args, opts.cwd, e)));
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const stdout = Buffer.concat(out);
      const exitCode = code ?? -1;
      if (okCodes.includes(exitCode)) resolve({ stdout, stderr, exitCode });
      else reject(classifyGitFailure(args, exitCode, stderr));
    });
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
    else child.stdin.end();
  });
}

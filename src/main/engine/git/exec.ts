import { spawn } from 'node:child_process';
import os from 'node:os';
import { classifyGitFailure, spawnFailure } from './errors';
import { gitEnv } from './env';
import { runResident } from '../residentShell';

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
 * Run git once with an args array (no word of it ever interpreted), optional stdin, and collect stdout as bytes.
 * This is the path for stdin-fed plumbing and for anything whose output must not be decoded (blob contents).
 * Started by a resident shell where one can (residentShell.ts: no fork of this whole process), else from here.
 */
export async function execGit(args: readonly string[], opts: ExecGitOptions = {}): Promise<ExecGitResult> {
  const okCodes = opts.okExitCodes ?? [0];
  const env = opts.env ?? gitEnv();
  const cwd = opts.cwd ?? currentFolder();
  const viaShell =
    cwd === null
      ? null
      : await runResident('git', args, { cwd, env, stdin: opts.stdin }).catch((e: Error) => {
          throw classifyGitFailure(args, null, e.message);
        });
  if (viaShell) {
    const stderr = viaShell.stderr.toString('utf8');
    if (okCodes.includes(viaShell.code)) return { stdout: viaShell.stdout, stderr, exitCode: viaShell.code };
    throw classifyGitFailure(args, viaShell.code, stderr);
  }
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: opts.cwd,
      env,
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
    child.on('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const stdout = Buffer.concat(out);
      // Killed by a signal: 128 + its number, as the resident shell reports it.
      const exitCode = code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : -1);
      if (okCodes.includes(exitCode)) resolve({ stdout, stderr, exitCode });
      else reject(classifyGitFailure(args, exitCode, stderr));
    });
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
    else child.stdin.end();
  });
}

/**
 * This process's folder; null when it was deleted before Node first read it (Node keeps the first answer): a child
 * started directly still inherits it, where the shell would have nothing to enter.
 */
function currentFolder(): string | null {
  try {
    return process.cwd();
  } catch {
    return null;
  }
}

import { RetraceError } from '../../../shared/errors';
import { GitError } from './errors';
import { execGit } from './exec';

let cached: Promise<string> | undefined;

/** The installed git's version ("2.39.5"); E_GIT_MISSING when there is none on PATH. Asked once per process. */
export function checkGit(env?: NodeJS.ProcessEnv): Promise<string> {
  if (env) return askGit(env);
  cached ??= askGit(undefined).catch((e: unknown) => {
    cached = undefined;
    throw e;
  });
  return cached;
}

async function askGit(env: NodeJS.ProcessEnv | undefined): Promise<string> {
  try {
    const { stdout } = await execGit(['--version'], env ? { env } : {});
    const m = /git version (\S+)/.exec(stdout.toString('utf8'));
    if (!m?.[1]) throw new RetraceError('E_GIT_MISSING', `unexpected output from git --version`);
    return m[1];
  } catch (e) {
    if (e instanceof GitError && e.kind === 'git-missing')
      throw new RetraceError('E_GIT_MISSING', 'git is not installed or not on PATH');
    throw e;
  }
}

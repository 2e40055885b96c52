import { GitError } from './errors';
import type { GitRunner } from './runner';

export const ZERO_OID = '0'.repeat(40);

export async function readRef(git: GitRunner, ref: string): Promise<string | null> {
  // exit 1 without output: no such ref
  const { stdout, exitCode } = await git.exec(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
    okExitCodes: [0, 1],
  });
  return exitCode === 0 ? stdout.toString('utf8').trim() : null;
}

/** expectedOld: undefined = no check, null = the ref must not exist yet, a hash = it must be at that hash. */
export async function updateRef(git: GitRunner, ref: string, hash: string, expectedOld?: string | null): Promise<void> {
  const args = ['update-ref', '--no-deref', ref, hash];
  if (expectedOld !== undefined) args.push(expectedOld ?? ZERO_OID);
  await git.exec(args);
}

export async function deleteRef(git: GitRunner, ref: string): Promise<void> {
  await git.exec(['update-ref', '--no-deref', '-d', ref]);
}

export async function listRefs(git: GitRunner, prefix: string): Promise<{ ref: string; hash: string }[]> {
  const out = await git.raw(['for-each-ref', '--format=%(objectname) %(refname)', prefix]);
  return out
    .split('\n')
    .filter((l) => l.length > 41)
    .map((l) => ({ hash: l.slice(0, 40), ref: l.slice(41) }));
}

export function isRefMismatch(e: unknown): boolean {
  return e instanceof GitError && e.kind === 'ref-mismatch';
}

import { existsSync } from 'node:fs';
import os from 'node:os';
import { RetraceError } from '../../../shared/errors';

/** What went wrong in one git call, classified from git's own words. */
export type GitErrorKind =
  | 'git-missing' // the binary is not on PATH
  | 'workdir-missing' // the folder git was to run in (the workspace) no longer exists
  | 'index-locked' // <git-dir>/index.lock exists
  | 'ref-locked' // a ref's .lock exists
  | 'ref-mismatch' // update-ref's expected old value did not match
  | 'bad-object' // an object id that does not exist / is not the right type
  | 'unreadable' // a work-tree file git could not open
  | 'churned' // a work-tree file deleted or rewritten while git read it (between its lstat and its read)
  | 'corrupt' // the repository's files are damaged
  | 'failed'; // anything else: git's message is kept

export class GitError extends Error {
  constructor(
    readonly kind: GitErrorKind,
    message: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    /** For 'unreadable' and 'churned': the work-tree path git named; for 'workdir-missing': the folder. */
    readonly path?: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

/** Global options that take their value as the next argument (`-c core.autocrlf=false`, `-C dir`). */
const OPTIONS_WITH_VALUE = new Set(['-c', '-C', '--config-env', '--exec-path', '--namespace']);

/** The git subcommand of an argument list ("read-tree"), past global options and their values. */
export function gitSubcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (OPTIONS_WITH_VALUE.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return '';
}

/**
 * A git child that could not be started. ENOENT means either no git on PATH or no folder to run it in (a
 * workspace deleted while open): only the second leaves its cwd missing, so look before blaming git.
 */
export function spawnFailure(args: readonly string[], cwd: string | undefined, e: NodeJS.ErrnoException): GitError {
  if (e.code === 'ENOENT' && cwd !== undefined && !existsSync(cwd))
    return new GitError('workdir-missing', `folder does not exist: ${cwd}`, args, null, '', cwd);
  if (e.code === 'ENOENT') return new GitError('git-missing', 'git is not installed or not on PATH', args, null, '');
  return new GitError('failed', `cannot run git ${gitSubcommand(args)}: ${e.message}`, args, null, '');
}

/**
 * The exit code of a git killed by SIGBUS (128 + n, as a shell and execGit report a signal): git maps a work-tree
 * file of more than 32 KB to hash it, and one cut short meanwhile faults on the pages past its new end.
 */
const SIGBUS_EXIT = os.constants.signals.SIGBUS === undefined ? null : 128 + os.constants.signals.SIGBUS;

/** git died of SIGBUS: it could not remove its own lock files (index.lock), as it does on an error. */
export function diedOfSigbus(e: GitError): boolean {
  return e.exitCode !== null && e.exitCode === SIGBUS_EXIT;
}

export function classifyGitFailure(args: readonly string[], exitCode: number | null, stderr: string): GitError {
  const text = stderr.trim();
  const first = text.split('\n').find((l) => /^(fatal|error):/.test(l)) ?? text.split('\n')[0] ?? '';
  const bus = exitCode !== null && exitCode === SIGBUS_EXIT;
  const why = first || (bus ? 'stopped by SIGBUS (a file it read was cut short meanwhile)' : `exit ${exitCode}`);
  const message = `git ${gitSubcommand(args)} failed: ${why}`;
  let kind: GitErrorKind = 'failed';
  let path: string | undefined;
  const unreadable = /(?:open|read|readlink|lstat|stat|opendir)\("(.*)"\): Permission denied/.exec(text);
  const churned =
    /(?:open|read|readlink)\("(.*)"\): No such file or directory/.exec(text) ??
    /short read while indexing (.*)/.exec(text);
  if (/index\.lock': File exists/.test(text)) kind = 'index-locked';
  else if (/cannot lock ref .*but expected|is at [0-9a-f]+ but expected|reference already exists/.test(text))
    kind = 'ref-mismatch';
  else if (/\.lock': File exists|cannot lock ref/.test(text)) kind = 'ref-locked';
  else if (unreadable) {
    kind = 'unreadable';
    path = unreadable[1];
  } else if (/Permission denied/.test(text)) kind = 'unreadable';
  else if (churned) {
    kind = 'churned';
    path = churned[1];
  } else if (bus) kind = 'churned';
  else if (
    /index file corrupt|index file smaller than expected|unknown index entry format|index file open failed|bad signature|loose object .* is corrupt|object file .* is empty|bad tree object|packfile .* does not match|unable to read [0-9a-f]{40}|unable to read tree|missing (?:blob|tree|commit) [0-9a-f]{40}|inflate: data stream error|unexpected line in .*packed-refs|reference broken/.test(
      text,
    )
  )
    kind = 'corrupt';
  else if (
    /[Nn]ot a valid object name|bad object|unknown revision|not a tree object|not a valid (?:commit|tree)|Not a valid object|ambiguous argument|invalid object|Needed a single revision/.test(
      text,
    )
  )
    kind = 'bad-object';
  return new GitError(kind, message, args, exitCode, stderr, path);
}

/** The RetraceError a caller shows for a git failure it did not handle itself. */
export function toRetraceError(e: unknown): RetraceError {
  if (e instanceof RetraceError) return e;
  if (!(e instanceof GitError)) return new RetraceError('E_INTERNAL', (e as Error)?.message ?? String(e), { cause: e });
  switch (e.kind) {
    case 'git-missing':
      return new RetraceError('E_GIT_MISSING', 'git is not installed or not on PATH', { cause: e });
    case 'workdir-missing':
      return new RetraceError('E_NOT_FOUND', e.message, { cause: e });
    case 'index-locked':
    case 'ref-locked':
      return new RetraceError('E_LOCKED', `the shadow repository is locked by another git process (${e.message})`, {
        cause: e,
      });
    case 'unreadable':
      return new RetraceError('E_UNREADABLE', e.path ? `cannot read ${e.path}` : e.message, { cause: e });
    case 'corrupt':
      return new RetraceError('E_CORRUPT', e.message, { cause: e });
    default:
      return new RetraceError('E_GIT', e.message, { cause: e });
  }
}

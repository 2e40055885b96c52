import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { classifyGitFailure, GitError, spawnFailure } from './errors';
import { execGit, type ExecGitOptions, type ExecGitResult } from './exec';
import { GIT_ENV_SET, gitEnv } from './env';
import { GIT_SHARED_REPOSITORY } from '../privateFs';

export interface GitRunnerOptions {
  /** The shadow repository (passed as --git-dir on every call). */
  gitDir: string;
  /** The user's folder (passed as --work-tree on every call). */
  workTree: string;
  /** An empty directory git may use as hooksPath; nothing runs from it. */
  hooksDir: string;
  /** An index other than <gitDir>/index (a reader's private copy, privateIndex.ts). */
  indexFile?: string;
  /** false: git syncs nothing it writes; the caller syncs the whole file system afterwards (withoutFsync). */
  fsync?: boolean;
}

/** Who authors and commits every checkpoint (commitObject.ts writes the same identity git would). */
export const SHADOW_IDENTITY = { name: 'Retrace', email: 'retrace@localhost' } as const;

/**
 * Settings passed with -c on every call, so they hold even if the shadow's config file is damaged or was
 * written by an older version. Global and system config are off (env), so nothing of the user's applies.
 */
export function shadowConfig(hooksDir: string): string[] {
  return [
    'core.autocrlf=false',
    'core.safecrlf=false',
    'core.symlinks=true',
    'core.fileMode=true',
    'core.quotePath=false',
    'core.precomposeUnicode=true',
    // Also on case-insensitive folders: names compare exactly, so a case-only rename shows as a new name and
    // shadow/caseInsensitive.ts keeps the disk's spelling (ignoreCase=true would keep the index's old one).
    'core.ignoreCase=false',
    'core.untrackedCache=true',
    'core.fsmonitor=false',
    'core.excludesFile=/dev/null',
    'core.attributesFile=/dev/null',
    `core.hooksPath=${hooksDir}`,
    'core.logAllRefUpdates=false',
    'core.bigFileThreshold=512m',
    'gc.auto=0',
    'maintenance.auto=false',
    'advice.detachedHead=false',
    `user.name=${SHADOW_IDENTITY.name}`,
    `user.email=${SHADOW_IDENTITY.email}`,
    'commit.gpgSign=false',
    // Durability (issue 10 item 11): the objects and refs a session log line names reach the disk before the
    // line does (git's default syncs packs only). Batch: loose objects of one command share one flush.
    'core.fsync=objects,reference,index',
    'core.fsyncMethod=batch',
    'index.threads=1',
    // Version 4 indexes are about 40% smaller (paths prefix-compressed): every git call that reads the index
    // hashes and parses less (engineer E, bench). Applies to indexes created from now on.
    'index.version=4',
    // A split index: git rewrites only the entries that changed since the shared part was written, instead
    // of all 100k (update-index 92 → 29 ms, write-tree 98 → 27 ms at 100k files). Shared parts no index
    // names any more are dropped after a day.
    'core.splitIndex=true',
    'splitIndex.sharedIndexExpire=1.day.ago',
    // Every file git writes in the shadow repository is the owner's alone, whatever the umask (init.ts).
    `core.sharedRepository=${GIT_SHARED_REPOSITORY}`,
  ];
}

/**
 * All git work for one shadow repository goes through one runner: a simple-git instance (one process at a
 * time) for text answers, and execGit for stdin-fed or byte-exact plumbing. Both share one queue, so two
 * calls of the same process never race for the shadow index.
 */
export class GitRunner {
  readonly gitDir: string;
  readonly workTree: string;
  private readonly prefix: string[];
  private readonly env: NodeJS.ProcessEnv;
  /** For commands that read only objects yet load the index anyway (diff-tree): an index that does not exist. */
  private readonly envWithoutIndex: NodeJS.ProcessEnv;
  private readonly git: SimpleGit;
  /** The queue of this runner's calls, shared with withoutFsync's runner (same index, so never two at once). */
  private readonly lane: { tail: Promise<unknown> };
  private readonly opts: GitRunnerOptions;

  constructor(opts: GitRunnerOptions, lane: { tail: Promise<unknown> } = { tail: Promise.resolve() }) {
    this.opts = opts;
    this.lane = lane;
    this.gitDir = opts.gitDir;
    this.workTree = opts.workTree;
    this.prefix = [
      `--git-dir=${opts.gitDir}`,
      `--work-tree=${opts.workTree}`,
      '--no-pager',
      ...shadowConfig(opts.hooksDir).flatMap((c) => ['-c', c]),
      // A private index is one whole file: a split one would write its shared part into the shadow repository.
      ...(opts.indexFile ? ['-c', 'core.splitIndex=false'] : []),
      ...(opts.fsync === false ? ['-c', 'core.fsync=none'] : []),
    ];
    this.env = opts.indexFile ? { ...gitEnv(), GIT_INDEX_FILE: opts.indexFile } : gitEnv();
    this.envWithoutIndex = { ...this.env, GIT_INDEX_FILE: path.join(opts.gitDir, 'no-index') };
    this.git = simpleGit({
      baseDir: opts.workTree,
      maxConcurrentProcesses: 1,
      trimmed: false,
      // Any non-zero exit is a failure, even one with empty stderr (simple-git's default needs stderr text).
      errors: (error, result) => {
        if (result.exitCode === 0) return undefined;
        const stderr = Buffer.concat(result.stdErr);
        return stderr.length > 0 ? stderr : Buffer.from(`exit ${result.exitCode}`);
      },
      // simple-git 4 blocks GIT_* variables and "unsafe" options unless listed: we set exactly these on purpose.
      allowEnvironment: [...Object.keys(GIT_ENV_SET), ...(opts.indexFile ? ['GIT_INDEX_FILE'] : [])],
      unsafe: {
        allowUnsafeConfigPaths: true,
        allowUnsafeHooksPath: true,
        allowUnsafeTemplateDir: true,
        allowUnsafeFsMonitor: true,
      },
    }).env(this.env);
  }

  /** A runner for the same repository that stages into another index file (a reader's private copy). */
  withIndexFile(indexFile: string): GitRunner {
    return new GitRunner({ ...this.opts, indexFile });
  }

  /**
   * The same repository and index with git's own fsyncs off (objects, index): for a writer that makes the whole
   * file system durable with one syncfs before anything names what git wrote (record.ts, syncFs.ts
   * canSyncFileSystem). Its calls queue with this runner's.
   */
  withoutFsync(): GitRunner {
    return new GitRunner({ ...this.opts, fsync: false }, this.lane);
  }

  /**
   * A text answer (ls-files -z, diff-tree -z, rev-parse …). Paths in it are UTF-8; blobs never go here.
   * Pathspecs are literal (no globs, no magic) unless a command cannot take that (check-ignore).
   */
  raw(args: readonly string[], opts: { literalPathspecs?: boolean } = {}): Promise<string> {
    return this.enqueue(async () => {
      try {
        return await this.git.raw([...this.prefixFor(opts.literalPathspecs), ...args]);
      } catch (e) {
        throw fromSimpleGit(args, e, this.workTree);
      }
    });
  }

  /** Byte-exact or stdin-fed plumbing (update-index --stdin, cat-file --batch, check-ignore --stdin …). */
  exec(
    args: readonly string[],
    opts: Omit<ExecGitOptions, 'env' | 'cwd'> & {
      literalPathspecs?: boolean;
      /** For commands that only read objects but load the index anyway (diff-tree): point them at none. */
      withoutIndex?: boolean;
    } = {},
  ): Promise<ExecGitResult> {
    const { literalPathspecs, withoutIndex, ...rest } = opts;
    const env = withoutIndex ? this.envWithoutIndex : this.env;
    return this.enqueue(() =>
      execGit([...this.prefixFor(literalPathspecs), ...args], { ...rest, env, cwd: this.workTree }),
    );
  }

  /** The index file git reads and writes (GIT_INDEX_FILE, else the repository's own). */
  indexPath(): string {
    return this.opts.indexFile ?? path.join(this.gitDir, 'index');
  }

  /** Bytes of the index git reads, its shared part included (core.splitIndex): how large a folder's scan is. */
  indexBytes(): number {
    const size = (file: string): number => {
      try {
        return statSync(file).size;
      } catch {
        return 0;
      }
    };
    if (this.opts.indexFile) return size(this.opts.indexFile);
    let names: string[] = [];
    try {
      names = readdirSync(this.gitDir);
    } catch {
      // no repository folder: git's own call reports it
    }
    // Shared parts no index names any more stay for a day: the largest stands for the live one.
    const shared = Math.max(
      0,
      ...names.filter((n) => n.startsWith('sharedindex.')).map((n) => size(path.join(this.gitDir, n))),
    );
    return size(path.join(this.gitDir, 'index')) + shared;
  }

  /**
   * Commands that only read the index, run side by side in one turn of the queue (no writer runs meanwhile): on
   * two cores a full scan's two walks take the time of the longer one. Every process is waited for before the
   * turn ends, also when one fails; the first failure is thrown.
   */
  async execSideBySide(calls: readonly (readonly string[])[]): Promise<ExecGitResult[]> {
    const prefix = this.prefixFor();
    return this.enqueue(async () => {
      const settled = await Promise.allSettled(
        calls.map((args) => execGit([...prefix, ...args], { env: this.env, cwd: this.workTree })),
      );
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      return settled.map((r) => (r as PromiseFulfilledResult<ExecGitResult>).value);
    });
  }

  /**
   * A long-lived git process for request/response reading (cat-file --batch, objectReader.ts). Not queued:
   * it only reads objects, never the index, so it cannot race the queued calls.
   */
  spawnReader(
    args: readonly string[],
    opts: { lineBuffered?: boolean; withoutIndex?: boolean; resident?: boolean } = {},
  ): ChildProcessWithoutNullStreams {
    const gitArgs = [...this.prefixFor(true), ...args];
    // lineBuffered: git block-buffers stdout on a pipe; under `stdbuf -oL` (coreutils) it flushes at each
    // newline, so a request/response reader gets its answer without closing stdin (residentDiffTree.ts).
    const [cmd, argv] = opts.lineBuffered ? ['stdbuf', ['-oL', 'git', ...gitArgs]] : ['git', gitArgs];
    return spawn(cmd, argv, {
      // A resident reader runs in the repository, not the user's folder: a process that lives on must not keep
      // that folder's disk busy (an unmount, a USB stick taken away); it reads only objects.
      cwd: opts.resident ? this.gitDir : this.workTree,
      env: opts.withoutIndex ? this.envWithoutIndex : this.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
  }

  private prefixFor(literal = true): string[] {
    return literal ? ['--literal-pathspecs', ...this.prefix] : this.prefix;
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lane.tail.then(fn, fn);
    this.lane.tail = run.catch(() => undefined);
    return run;
  }
}

function fromSimpleGit(args: readonly string[], e: unknown, cwd: string): GitError {
  if (e instanceof GitError) return e;
  const message = (e as Error)?.message ?? String(e);
  if (/ENOENT|spawn git/.test(message) && !/fatal:|error:/.test(message))
    return spawnFailure(args, cwd, Object.assign(new Error(message), { code: 'ENOENT' }));
  return classifyGitFailure(args, null, message);
}

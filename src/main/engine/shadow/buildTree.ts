/**
 * Trees built from a base tree plus file contents, without touching the workspace or the shadow index:
 * importers use it to turn "the workspace as it is, except these files had this content at that step" into
 * a checkpoint tree. Works on a private index file in the workspace's data folder (GIT_INDEX_FILE), removed
 * when done. Callers hold the workspace lock (the blobs are written into the shadow repository).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { execGit } from '../git/exec';
import { gitEnv } from '../git/env';
import { toRetraceError } from '../git/errors';
import { shadowConfig } from '../git/runner';
import type { ShadowRepo } from './ShadowRepo';

const ZERO = '0000000000000000000000000000000000000000';

/** What a path should be in the next tree: bytes, absent (null), or as in the base tree ('base'). */
export type TreeEdit = Buffer | null | 'base';

export class TreeBuilder {
  private readonly prefix: string[];
  private readonly env: NodeJS.ProcessEnv;
  private readonly indexFile: string;
  private readonly cwd: string;
  /** Base entries of the paths edited so far: mode and blob, or null when the base lacks the path. */
  private readonly baseEntries = new Map<string, { mode: string; blob: string } | null>();
  private readonly blobs = new Map<string, string>();

  private constructor(
    shadow: ShadowRepo,
    private readonly baseTree: string,
  ) {
    const dir = shadow.ws.dir;
    // Same settings as every shadow call (hooks off, no filters); the empty hooks folder is the one A's runner uses.
    this.prefix = [
      `--git-dir=${shadow.gitDir}`,
      '--literal-pathspecs',
      ...shadowConfig(join(dir, 'empty')).flatMap((c) => ['-c', c]),
      // A private, short-lived index: splitting it would leave its shared part in the repository.
      '-c',
      'core.splitIndex=false',
    ];
    this.indexFile = join(dir, `build-index-${process.pid}-${randomBytes(4).toString('hex')}`);
    this.env = { ...gitEnv(), GIT_INDEX_FILE: this.indexFile };
    this.cwd = dir;
  }

  /** Start from `baseTree` (a tree or commit id) of the workspace's shadow repository. */
  static async open(shadow: ShadowRepo, baseTree: string): Promise<TreeBuilder> {
    const b = new TreeBuilder(shadow, baseTree);
    try {
      await b.git(['read-tree', baseTree]);
    } catch (e) {
      b.dispose();
      throw e;
    }
    return b;
  }

  /** Apply edits to the private index and return the tree it now holds. Edits accumulate across calls. */
  async write(edits: Map<string, TreeEdit>): Promise<string> {
    await this.loadBase([...edits.keys()].filter((p) => !this.baseEntries.has(p)));
    const records: string[] = [];
    for (const [path, edit] of edits) {
      if (edit === 'base') {
        const base = this.baseEntries.get(path);
        records.push(base ? `${base.mode} ${base.blob}\t${path}` : `0 ${ZERO}\t${path}`);
      } else if (edit === null) {
        records.push(`0 ${ZERO}\t${path}`);
      } else {
        const blob = await this.blob(edit);
        const mode = this.baseEntries.get(path)?.mode === '100755' ? '100755' : '100644';
        records.push(`${mode} ${blob}\t${path}`);
      }
    }
    if (records.length > 0) await this.git(['update-index', '-z', '--index-info'], records.join('\0') + '\0');
    return (await this.git(['write-tree'])).toString('utf8').trim();
  }

  dispose(): void {
    rmSync(this.indexFile, { force: true });
    rmSync(`${this.indexFile}.lock`, { force: true });
  }

  private async blob(bytes: Buffer): Promise<string> {
    const key = bytes.toString('base64');
    const known = this.blobs.get(key);
    if (known) return known;
    const id = (await this.git(['hash-object', '-w', '--stdin'], bytes)).toString('utf8').trim();
    this.blobs.set(key, id);
    return id;
  }

  private async loadBase(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    for (const p of paths) this.baseEntries.set(p, null);
    // ls-tree in slices: a long session can touch many files, and argv has limits.
    for (let i = 0; i < paths.length; i += 200) {
      const out = await this.git(['ls-tree', '-z', '--full-tree', this.baseTree, '--', ...paths.slice(i, i + 200)]);
      for (const rec of out.toString('utf8').split('\0')) {
        const m = /^(\d{6}) (\w+) ([0-9a-f]{40})\t(.*)$/s.exec(rec);
        if (m && m[2] === 'blob') this.baseEntries.set(m[4]!, { mode: m[1]!, blob: m[3]! });
      }
    }
  }

  private async git(args: string[], stdin?: Buffer | string): Promise<Buffer> {
    try {
      const r = await execGit([...this.prefix, ...args], {
        env: this.env,
        cwd: this.cwd,
        ...(stdin !== undefined ? { stdin } : {}),
      });
      return r.stdout;
    } catch (e) {
      throw toRetraceError(e);
    }
  }
}

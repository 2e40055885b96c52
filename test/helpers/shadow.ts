/**
 * Look inside a workspace's data: its folder under RETRACE_HOME/workspaces/<id>, the shadow repository
 * (shadow.git), and git plumbing against it — to check what the CLI claims independently of the engine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/** The per-workspace data folder whose workspace.json names `root`, or null when none exists yet. */
export function workspaceDataDir(home: string, root: string): string | null {
  const base = join(home, 'workspaces');
  if (!existsSync(base)) return null;
  const real = realpathSync(root);
  for (const id of readdirSync(base)) {
    const meta = join(base, id, 'workspace.json');
    if (!existsSync(meta)) continue;
    try {
      const j = JSON.parse(readFileSync(meta, 'utf8')) as { root?: string };
      if (j.root === real) return join(base, id);
    } catch {
      // a damaged workspace.json is some other test's business
    }
  }
  return null;
}

export function shadowDir(home: string, root: string): string {
  const dir = workspaceDataDir(home, root);
  if (!dir) throw new Error(`no workspace data for ${root} under ${home}`);
  return join(dir, 'shadow.git');
}

/** Plain git against a bare-style git dir, with no user config and no work tree. */
export function gitAt(gitDir: string, args: string[]): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  });
}

/** `git fsck --full` of the shadow repo: { ok, output }. Dangling objects are fine; errors are not. */
export function fsck(gitDir: string): { ok: boolean; output: string } {
  const r = spawnSync('git', [`--git-dir=${gitDir}`, 'fsck', '--full', '--no-progress'], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
  const output = `${r.stdout}${r.stderr}`;
  const bad = output.split('\n').filter((l) => l.trim() !== '' && !/^(dangling|notice: )/.test(l));
  return { ok: r.status === 0 && bad.length === 0, output };
}

/** Every blob id reachable from any ref of the shadow repo (to prove content is not lost). */
export function reachableBlobs(gitDir: string): Set<string> {
  const out = gitAt(gitDir, ['rev-list', '--objects', '--all']);
  const ids = out
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter((id) => /^[0-9a-f]{40}$/.test(id));
  if (ids.length === 0) return new Set();
  const types = execFileSync('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch-check=%(objectname) %(objecttype)'], {
    input: ids.join('\n') + '\n',
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return new Set(
    types
      .split('\n')
      .filter((l) => l.endsWith(' blob'))
      .map((l) => l.split(' ')[0]!),
  );
}

/** The git blob id of some bytes (what `git hash-object` would print). */
export function blobId(bytes: Buffer): string {
  return execFileSync('git', ['hash-object', '--stdin'], { input: bytes, encoding: 'utf8' }).trim();
}

export function refs(gitDir: string, prefix = 'refs/'): Map<string, string> {
  const out = gitAt(gitDir, ['for-each-ref', '--format=%(refname) %(objectname)', prefix]);
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [ref, hash] = l.split(' ');
        return [ref!, hash!] as const;
      }),
  );
}

/** Path → size as git has it in an index (`ls-files --debug`; 0 for an entry git smudged as racy). */
export function indexedSizes(git: (...args: string[]) => string): Map<string, number> {
  const out = new Map<string, number>();
  const lines = git('ls-files', '--debug').split('\n');
  for (let i = 0; i < lines.length; i++)
    if (!lines[i]!.startsWith(' ')) out.set(lines[i]!, Number(/size: (\d+)/.exec(lines[i + 5] ?? '')?.[1]));
  out.delete('');
  return out;
}

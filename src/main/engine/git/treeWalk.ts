import { GitError } from './errors';
import type { GitObject } from './objectReader';
import { isTreeMode, parseTree } from './treeObject';

/** What reads objects one at a time (ResidentReader, ObjectReader). */
export interface ObjectSource {
  read(id: string): Promise<GitObject | null>;
}

export interface PathEntry {
  /** As ls-tree shows it: six octal digits (040000 for a folder). */
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  id: string;
}

/** The tree a commit names: its first header line (`tree <id>`), as `<commit>^{tree}` peels it. */
export function treeOfCommitBody(body: Buffer): string | null {
  const m = /^tree ([0-9a-f]{40})\n/.exec(body.subarray(0, 46).toString('latin1'));
  return m ? m[1]! : null;
}

/** `<id>^{tree}` for a commit or a tree; null when it is neither (or is missing), as rev-parse answers. */
export async function peelTree(source: ObjectSource, id: string): Promise<string | null> {
  const o = await source.read(id);
  if (!o) return null;
  if (o.type === 'tree') return id;
  if (o.type === 'commit') return treeOfCommitBody(o.body);
  if (o.type === 'tag') {
    const m = /^object ([0-9a-f]{40})\n/.exec(o.body.subarray(0, 48).toString('latin1'));
    return m ? peelTree(source, m[1]!) : null;
  }
  return null;
}

/**
 * The entry at a '/'-separated path of a tree, walking one tree object per folder (what `ls-tree <tree> --
 * <path>` answers for a literal path), or null when some part of the path is absent or not a folder.
 * `trees` caches tree bodies by id across the calls of one request (many paths share folders).
 */
export async function entryAtPath(
  source: ObjectSource,
  tree: string,
  filePath: string,
  trees: Map<string, ReturnType<typeof parseTree>> = new Map(),
): Promise<PathEntry | null> {
  const parts = filePath.split('/');
  if (parts.some((p) => p === '')) return null;
  let dir = tree;
  for (let i = 0; i < parts.length; i++) {
    let entries = trees.get(dir);
    if (!entries) {
      const o = await source.read(dir);
      if (!o || o.type !== 'tree') {
        const why = `tree ${dir} is missing from the shadow repository`;
        throw new GitError('corrupt', why, ['cat-file', '--batch'], null, why);
      }
      entries = parseTree(o.body);
      trees.set(dir, entries);
    }
    const name = Buffer.from(parts[i]!, 'utf8');
    const e = entries.find((x) => x.name.equals(name));
    if (!e) return null;
    const type = isTreeMode(e.mode) ? 'tree' : e.mode === '160000' ? 'commit' : 'blob';
    if (i === parts.length - 1) return { mode: e.mode.padStart(6, '0'), type, id: e.id };
    if (type !== 'tree') return null;
    dir = e.id;
  }
  return null;
}

import type { GitRunner } from './runner';

export interface TreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  id: string;
  path: string;
}

/**
 * Entries of a tree. With paths: those entries (a directory path gives its tree entry, not its content);
 * recursive lists every blob below.
 */
export async function lsTree(
  git: GitRunner,
  treeish: string,
  opts: { paths?: readonly string[]; recursive?: boolean } = {},
): Promise<TreeEntry[]> {
  if (opts.paths && opts.paths.length === 0) return [];
  const args = ['ls-tree', '-z', '--full-tree', ...(opts.recursive ? ['-r'] : []), treeish];
  if (opts.paths) args.push('--', ...opts.paths);
  const out = await git.raw(args);
  const entries: TreeEntry[] = [];
  for (const rec of out.split('\0')) {
    if (rec === '') continue;
    const tab = rec.indexOf('\t');
    const [mode, type, id] = rec.slice(0, tab).split(' ');
    entries.push({ mode: mode!, type: type as TreeEntry['type'], id: id!, path: rec.slice(tab + 1) });
  }
  return entries;
}

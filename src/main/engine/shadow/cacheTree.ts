/**
 * Git's cache-tree (the index's TREE extension) kept through an index edited here (indexEdit.ts), as `update-index`
 * keeps it: every tree that holds an edited path is marked invalid, the others keep their ids. Dropped instead, the
 * next `write-tree` hashes every tree of the folder again (~18 ms against ~7 at 10,000 files).
 *
 * Format (gitformat-index): per tree, top-down and depth-first — its path component, NUL, its entry count in ASCII
 * (-1: invalid), a space, its number of subtrees, a newline, then its 20-byte id unless it is invalid; the root comes
 * first, with an empty component. Written by hand: no library reads or writes it.
 */
import { ID_BYTES, KEPT, Unexpected } from './indexRead';

/** The extension's data with each tree on the way to one of `paths` (root included) invalid; throws Unexpected. */
export function invalidateCacheTree(data: Buffer, paths: readonly Buffer[]): Buffer {
  const touched = new Set<string>(['']);
  for (const p of paths) {
    const s = p.toString('latin1');
    for (let i = s.indexOf('/'); i >= 0; i = s.indexOf('/', i + 1)) touched.add(s.slice(0, i));
  }
  const out: Buffer[] = [];
  let at = 0;
  const tree = (parent: string | null): void => {
    const nul = data.indexOf(0, at);
    const lf = nul < 0 ? -1 : data.indexOf(10, nul);
    if (lf < 0) throw new Unexpected('a cache-tree entry cut short');
    const counts = /^(-?\d+) (\d+)$/.exec(data.toString('latin1', nul + 1, lf));
    if (!counts) throw new Unexpected('a cache-tree entry without its counts');
    const entries = Number(counts[1]);
    const subtrees = Number(counts[2]);
    const component = data.toString('latin1', at, nul);
    const full = parent === null ? '' : parent === '' ? component : `${parent}/${component}`;
    const end = entries >= 0 ? lf + 1 + ID_BYTES : lf + 1;
    if (end > data.length) throw new Unexpected('a cache-tree entry cut short');
    if (entries >= 0 && touched.has(full)) out.push(data.subarray(at, nul + 1), Buffer.from(`-1 ${subtrees}\n`));
    else out.push(data.subarray(at, end));
    at = end;
    for (let i = 0; i < subtrees; i++) tree(full);
  };
  tree(null);
  if (at !== data.length) throw new Unexpected('bytes after the cache-tree');
  return Buffer.concat(out);
}

/** The extensions an edited index keeps (indexRead.ts KEPT), in their order, the cache-tree invalidated at `paths`. */
export function carriedOver(
  extensions: readonly { signature: string; data: Buffer }[],
  paths: readonly Buffer[],
): { signature: string; data: Buffer }[] {
  return extensions
    .filter((x) => KEPT.has(x.signature))
    .map((x) => (x.signature === 'TREE' ? { signature: 'TREE', data: invalidateCacheTree(x.data, paths) } : x));
}

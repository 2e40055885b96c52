/**
 * The Changed files list as rows: filtered, in natural order (file2 before file10), flat or as a folder tree
 * flattened into the rows that show (collapsed folders hide theirs), so the list stays virtualised either way.
 */
import type { FileChange } from '../../shared/model';

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Natural order: numbers by value, letters without regard to case (ties broken by code point, so it is total). */
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** The flat list's order: whole paths, naturally. */
export function sortFiles(files: readonly FileChange[]): FileChange[] {
  return [...files].sort((a, b) => naturalCompare(a.path, b.path));
}

/** The files whose path (or, for a rename, former path) contains `query`, ignoring case. */
export function filterFiles(files: readonly FileChange[], query: string): FileChange[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...files];
  return files.filter((f) => f.path.toLowerCase().includes(q) || (f.oldPath?.toLowerCase().includes(q) ?? false));
}

export interface FileRowItem {
  kind: 'file';
  key: string;
  file: FileChange;
  /** Nesting level (0 at the top). */
  depth: number;
  /** What the row shows: the whole path in the flat list, the file name in the tree. */
  label: string;
}

export interface FolderRowItem {
  kind: 'folder';
  key: string;
  /** The folder's path ('src/main'); a chain of single folders shows as one row. */
  path: string;
  label: string;
  depth: number;
  expanded: boolean;
  /** Files below it, at any depth. */
  files: number;
}

export type RowItem = FileRowItem | FolderRowItem;

export const folderKey = (path: string) => `dir:${path}`;
export const fileKey = (path: string) => `file:${path}`;

interface Folder {
  name: string;
  folders: Map<string, Folder>;
  files: FileChange[];
  count: number;
}

const newFolder = (name: string): Folder => ({ name, folders: new Map(), files: [], count: 0 });

function buildTree(files: readonly FileChange[]): Folder {
  const root = newFolder('');
  for (const f of files) {
    const parts = f.path.split('/');
    let at = root;
    at.count++;
    for (const part of parts.slice(0, -1)) {
      let next = at.folders.get(part);
      if (!next) at.folders.set(part, (next = newFolder(part)));
      next.count++;
      at = next;
    }
    at.files.push(f);
  }
  return root;
}

/**
 * The rows to show. Flat: every file, naturally ordered by path. Tree: folders first, then files, each level
 * in natural order; a folder holding only one folder merges with it ('src/main'); a collapsed folder's rows are
 * left out, except while a filter is typed (then everything that matches shows).
 */
export function buildRows(
  files: readonly FileChange[],
  opts: { tree: boolean; collapsed: ReadonlySet<string>; filter: string },
): RowItem[] {
  const shown = filterFiles(files, opts.filter);
  if (!opts.tree)
    return sortFiles(shown).map((f) => ({ kind: 'file', key: fileKey(f.path), file: f, depth: 0, label: f.path }));
  const rows: RowItem[] = [];
  const filtering = opts.filter.trim() !== '';
  const walk = (folder: Folder, prefix: string, depth: number) => {
    const subfolders = [...folder.folders.values()].sort((a, b) => naturalCompare(a.name, b.name));
    for (let sub of subfolders) {
      let label = sub.name;
      while (sub.files.length === 0 && sub.folders.size === 1) {
        sub = sub.folders.values().next().value!;
        label += `/${sub.name}`;
      }
      const path = prefix + label;
      const expanded = filtering || !opts.collapsed.has(path);
      rows.push({ kind: 'folder', key: folderKey(path), path, label, depth, expanded, files: sub.count });
      if (expanded) walk(sub, `${path}/`, depth + 1);
    }
    for (const f of [...folder.files].sort((a, b) => naturalCompare(a.path, b.path)))
      rows.push({ kind: 'file', key: fileKey(f.path), file: f, depth, label: f.path.slice(prefix.length) });
  };
  walk(buildTree(shown), '', 0);
  return rows;
}

/** The file a comparison opens on: the first of the flat list. */
export function firstFile(files: readonly FileChange[]): FileChange | undefined {
  let first: FileChange | undefined;
  for (const f of files) if (!first || naturalCompare(f.path, first.path) < 0) first = f;
  return first;
}

/**
 * Trees built from a base tree plus file contents, without touching the workspace or the shadow index:
 * importers use it to turn "the workspace as it is, except these files had this content at that step" into a
 * checkpoint tree, thousands of times for a long session.
 *
 * Built in this process, like the warm snapshot (treeEdit.ts): the base tree's folders are read once through one
 * `cat-file --batch` process and kept, and each step writes only its new blobs and the trees along their paths as
 * loose objects. The git-process version (read-tree, then hash-object, update-index and write-tree per step)
 * started four to five processes per checkpoint, most of an import's time. Callers hold the workspace lock (the
 * objects are written into the shadow repository).
 */
import { RetraceError } from '../../../shared/errors';
import { syncObjects, writeLooseObjectSync } from '../git/looseObject';
import type { ObjectReader } from '../git/objectReader';
import { encodeTree, isTreeMode, parseTree, TREE_MODE } from '../git/treeObject';
import type { ShadowRepo } from './ShadowRepo';

/** What a path should be in the next tree: bytes, absent (null), or as in the base tree ('base'). */
export type TreeEdit = Buffer | null | 'base';

type Leaf = { mode: string; id: string };
/**
 * A folder: its entries by name; a subfolder not yet opened is a Leaf with a tree mode. Names are kept as their
 * bytes (a latin1 string holds any byte sequence exactly), so a name that is not UTF-8 survives a rewrite of its
 * folder unchanged.
 */
interface Folder {
  entries: Map<string, Leaf | Folder>;
  /** Its id when unchanged since it was read or last written; null once an edit touched it. */
  id: string | null;
}

const isFolder = (x: Leaf | Folder): x is Folder => 'entries' in x;
/** A path segment as importers name it (UTF-8) → the key of its entry. */
const keyOf = (segment: string): string => Buffer.from(segment, 'utf8').toString('latin1');

export class TreeBuilder {
  /** Objects written and not yet synced (the caller syncs them once, before any log line names them). */
  private readonly written = new Set<string>();
  /** The base tree's folders, read once each (never edited: `root` holds the edited copies). */
  private readonly baseFolders = new Map<string, Folder>();

  private constructor(
    private readonly shadow: ShadowRepo,
    private readonly reader: ObjectReader,
    private readonly baseTree: string,
    private root: Folder,
  ) {
    this.gitDir = shadow.gitDir;
  }

  private readonly gitDir: string;

  /** Start from `baseTree` (a tree or commit id) of the workspace's shadow repository. */
  static async open(shadow: ShadowRepo, baseTree: string): Promise<TreeBuilder> {
    const reader = shadow.objectReader();
    try {
      const tree = await shadow.treeOf(baseTree);
      return new TreeBuilder(shadow, reader, tree, await readFolder(reader, tree));
    } catch (e) {
      reader.close();
      throw e;
    }
  }

  /** Apply edits and return the tree they make. Edits accumulate across calls. */
  async write(edits: Map<string, TreeEdit>): Promise<string> {
    for (const [path, edit] of edits) {
      const segs = path.split('/').map(keyOf);
      if (edit === 'base') await this.set(segs, await this.baseEntry(segs));
      else if (edit === null) await this.set(segs, null);
      else {
        const old = await this.entryAt(segs);
        const mode = old && !isFolder(old) && old.mode === '100755' ? '100755' : '100644';
        await this.set(segs, { mode, id: await this.blob(edit) });
      }
    }
    const tree = await this.writeFolder(this.root);
    this.shadow.noteTree(tree); // the commit on it then skips git's type check
    return tree;
  }

  /** Make every object written so far durable: once, before the import's log lines name them. */
  async flush(): Promise<void> {
    await syncObjects(this.gitDir, this.written);
    this.written.clear();
  }

  dispose(): void {
    this.reader.close();
  }

  private async put(type: 'blob' | 'tree', body: Buffer): Promise<string> {
    const id = writeLooseObjectSync(this.gitDir, type, body);
    this.written.add(id);
    return id;
  }

  /** A blob written once: writeLooseObject finds an object it already has by its id (no content kept here). */
  private blob(bytes: Buffer): Promise<string> {
    return this.put('blob', bytes);
  }

  /** The base tree's entry at a path (a file or link; a folder there counts as absent, as update-index saw it). */
  private async baseEntry(segs: string[]): Promise<Leaf | null> {
    let folder = await this.baseFolder(this.baseTree);
    for (const [i, name] of segs.entries()) {
      const e = folder.entries.get(name);
      if (!e) return null;
      if (i === segs.length - 1) return isFolder(e) || isTreeMode(e.mode) ? null : e;
      if (isFolder(e) || !isTreeMode(e.mode)) return null;
      folder = await this.baseFolder(e.id);
    }
    return null;
  }

  private async baseFolder(id: string): Promise<Folder> {
    let f = this.baseFolders.get(id);
    if (!f) this.baseFolders.set(id, (f = await readFolder(this.reader, id)));
    return f;
  }

  private async entryAt(segs: string[]): Promise<Leaf | Folder | null> {
    let folder: Folder = this.root;
    for (const [i, name] of segs.entries()) {
      const e = folder.entries.get(name);
      if (!e || i === segs.length - 1) return e ?? null;
      const sub = await this.open(folder, name, e);
      if (!sub) return null;
      folder = sub;
    }
    return null;
  }

  /** Set (or remove, with null) the entry at a path, creating folders on the way and dropping emptied ones. */
  private async set(segs: string[], leaf: Leaf | null): Promise<void> {
    const trail: Folder[] = [this.root];
    let folder = this.root;
    for (const name of segs.slice(0, -1)) {
      const e = folder.entries.get(name);
      let sub = e ? await this.open(folder, name, e) : null;
      if (!sub) {
        if (leaf === null) return; // nothing there to remove
        sub = { entries: new Map(), id: null }; // a file in the way is replaced by the folder, as git does
        folder.entries.set(name, sub);
      }
      folder = sub;
      trail.push(folder);
    }
    const name = segs.at(-1)!;
    if (leaf === null) folder.entries.delete(name);
    else folder.entries.set(name, leaf);
    for (const f of trail) f.id = null;
    // Folders left empty leave the tree (git has no empty trees below the root).
    for (let i = trail.length - 1; i > 0; i--) {
      if (trail[i]!.entries.size > 0) break;
      trail[i - 1]!.entries.delete(segs[i - 1]!);
    }
  }

  /** The folder an entry names, read on first use; null when the entry is not a folder. */
  private async open(parent: Folder, name: string, e: Leaf | Folder): Promise<Folder | null> {
    if (isFolder(e)) return e;
    if (!isTreeMode(e.mode)) return null;
    const sub = await readFolder(this.reader, e.id);
    parent.entries.set(name, sub);
    return sub;
  }

  private async writeFolder(folder: Folder): Promise<string> {
    if (folder.id) return folder.id;
    const entries = [];
    for (const [name, e] of folder.entries) {
      const id = isFolder(e) ? await this.writeFolder(e) : e.id;
      entries.push({ mode: isFolder(e) ? TREE_MODE : e.mode, name: Buffer.from(name, 'latin1'), id });
    }
    folder.id = await this.put('tree', encodeTree(entries));
    return folder.id;
  }
}

async function readFolder(reader: ObjectReader, id: string): Promise<Folder> {
  const obj = await reader.read(id);
  if (!obj || obj.type !== 'tree')
    throw new RetraceError('E_CORRUPT', `the shadow repository lacks tree ${id.slice(0, 7)}`);
  const entries = new Map<string, Leaf | Folder>();
  for (const e of parseTree(obj.body)) entries.set(e.name.toString('latin1'), { mode: e.mode, id: e.id });
  return { entries, id };
}

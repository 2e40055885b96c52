/**
 * `diff-tree -r --raw --no-renames A B [-- PATHS]` answered in this process, from tree objects read through the
 * repository's resident reader (residentReader.ts): a restore plans from it without starting a git process
 * (issue 15). Same changes, same order, same modes and ids as git's (resident.test.ts compares them on random
 * trees). Literal paths only: the caller sends anything else (empty parts, '.', a trailing '/') to git.
 *
 * What git does, and so this: both trees are walked in tree order (a folder's name compared as if it ended in
 * '/'); entries with equal names and the same id and mode are skipped, two folders are walked into, a folder on
 * one side only is walked for all its files, and anything else is one change. A file and a folder of one name
 * are different entries (a deletion and additions). That walk's order is the byte order of the full paths.
 */
import { isTreeMode, parseTree, type TreeEntry } from './treeObject';
import type { RawChange } from './diffTree';
import type { ObjectSource } from './treeWalk';
import { GitError } from './errors';

const ZERO_ID = '0'.repeat(40);
const ABSENT = '000000';

/** A path `literal pathspecs` take as git does: no empty part, no '.' or '..', no leading or trailing '/'. */
export function isPlainPath(p: string): boolean {
  return p !== '' && p.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

interface Side {
  mode: string;
  id: string;
}

interface Pair {
  /** The folder's path with a trailing '/', or '' at the top. */
  prefix: string;
  a: string | null;
  b: string | null;
}

export async function diffTreesInProcess(
  source: ObjectSource,
  from: string,
  to: string,
  paths?: readonly string[],
): Promise<RawChange[]> {
  if (paths && !paths.every(isPlainPath)) throw new Error('diffTreesInProcess: literal paths only');
  const openers = paths ? new Set(paths.flatMap(ancestors)) : null;
  const inside = paths ? withinPaths(paths) : () => true;
  const changes: { key: Buffer; change: RawChange }[] = [];
  const emit = (p: string, a: Side | null, b: Side | null): void => {
    const status: RawChange['status'] = !a ? 'added' : !b ? 'deleted' : typeChanged(a, b) ? 'type-changed' : 'modified';
    changes.push({
      key: Buffer.from(p, 'utf8'),
      change: {
        status,
        path: p,
        oldMode: a ? sixDigits(a.mode) : ABSENT,
        newMode: b ? sixDigits(b.mode) : ABSENT,
        oldId: a?.id ?? ZERO_ID,
        newId: b?.id ?? ZERO_ID,
      },
    });
  };
  let level: Pair[] = from === to ? [] : [{ prefix: '', a: from, b: to }];
  while (level.length > 0) {
    // Every tree of this depth asked at once: one round of pipe traffic per level of folders.
    const ids = [...new Set(level.flatMap((p) => [p.a, p.b]).filter((id): id is string => id !== null))];
    const bodies = new Map<string, TreeEntry[]>();
    await Promise.all(
      ids.map(async (id) => {
        const o = await source.read(id);
        if (!o || o.type !== 'tree') {
          const why = `tree ${id} is missing from the shadow repository`;
          throw new GitError('corrupt', why, ['cat-file', '--batch'], null, why);
        }
        bodies.set(id, parseTree(o.body));
      }),
    );
    const next: Pair[] = [];
    for (const { prefix, a, b } of level) {
      walkPair(a ? bodies.get(a)! : [], b ? bodies.get(b)! : [], (p, ea, eb) => {
        const path = prefix + p;
        const aTree = ea !== null && isTreeMode(ea.mode);
        const bTree = eb !== null && isTreeMode(eb.mode);
        if (aTree || bTree) {
          // Two folders of one name, or a folder on one side only (the walk never pairs a folder with a file).
          if (ea && eb && ea.id === eb.id) return;
          if (openers && !openers.has(path) && !inside(path)) return;
          next.push({ prefix: path + '/', a: ea?.id ?? null, b: eb?.id ?? null });
          return;
        }
        if (ea && eb && ea.id === eb.id && ea.mode === eb.mode) return;
        if (!inside(path)) return;
        emit(path, ea, eb);
      });
    }
    level = next;
  }
  return changes.sort((x, y) => Buffer.compare(x.key, y.key)).map((c) => c.change);
}

/**
 * Whether a path is one of `paths` or inside one (a folder's): what literal pathspecs keep of a whole-tree diff.
 * The paths must be plain (isPlainPath).
 */
export function withinPaths(paths: readonly string[]): (p: string) => boolean {
  const wanted = new Set(paths);
  return (p) => wanted.has(p) || ancestors(p).some((d) => wanted.has(d));
}

/** Both sorted entry lists merged by git's tree order; `visit(name, a, b)` with null for the side that lacks it. */
function walkPair(
  a: readonly TreeEntry[],
  b: readonly TreeEntry[],
  visit: (name: string, a: TreeEntry | null, b: TreeEntry | null) => void,
): void {
  const ka = a.map(orderKey);
  const kb = b.map(orderKey);
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const c = i >= a.length ? 1 : j >= b.length ? -1 : Buffer.compare(ka[i]!, kb[j]!);
    if (c === 0) {
      visit(a[i]!.name.toString('utf8'), a[i]!, b[j]!);
      i++;
      j++;
    } else if (c < 0) {
      visit(a[i]!.name.toString('utf8'), a[i++]!, null);
    } else {
      visit(b[j]!.name.toString('utf8'), null, b[j++]!);
    }
  }
}

const SLASH = Buffer.from('/');
/** git's base_name_compare key: a folder's name as if it ended in '/'. */
const orderKey = (e: TreeEntry): Buffer => (isTreeMode(e.mode) ? Buffer.concat([e.name, SLASH]) : e.name);

/** Every folder above `p` ('a/b/c' → 'a', 'a/b'). */
function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) out.push(p.slice(0, i));
  return out;
}

const sixDigits = (mode: string): string => mode.padStart(6, '0');

/** A file became a link or a submodule, or the other way round (git's 'T'); exec bit changes are modifications. */
function typeChanged(a: Side, b: Side): boolean {
  const kind = (m: string): string => (m === '120000' ? 'link' : m === '160000' ? 'commit' : 'file');
  return kind(a.mode) !== kind(b.mode);
}

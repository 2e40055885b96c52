/**
 * git's tree object format: entries `<mode in octal, no leading zero> <name>\0<20-byte id>`, sorted by name
 * with a subtree's name compared as if it ended in '/' (git's base_name_compare). Names stay bytes.
 */
export interface TreeEntry {
  mode: string;
  name: Buffer;
  id: string;
}

export const TREE_MODE = '40000';

export function isTreeMode(mode: string): boolean {
  return mode === TREE_MODE || mode === '040000';
}

export function parseTree(body: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let pos = 0;
  while (pos < body.length) {
    const space = body.indexOf(0x20, pos);
    const nul = body.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > body.length) throw new Error('malformed tree object');
    entries.push({
      mode: body.subarray(pos, space).toString('latin1'),
      name: Buffer.from(body.subarray(space + 1, nul)),
      id: body.subarray(nul + 1, nul + 21).toString('hex'),
    });
    pos = nul + 21;
  }
  return entries;
}

const SLASH = Buffer.from('/');
const sortKey = (e: TreeEntry): Buffer => (isTreeMode(e.mode) ? Buffer.concat([e.name, SLASH]) : e.name);

export function encodeTree(entries: readonly TreeEntry[]): Buffer {
  const sorted = entries
    .map((e) => ({ e, key: sortKey(e) }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map(({ e }) => e);
  return Buffer.concat(
    sorted.flatMap((e) => [
      Buffer.from(`${isTreeMode(e.mode) ? TREE_MODE : e.mode} `, 'latin1'),
      e.name,
      Buffer.from([0]),
      Buffer.from(e.id, 'hex'),
    ]),
  );
}

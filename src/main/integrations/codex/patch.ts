/**
 * Codex CLI's `apply_patch` format, parsed and applied to text, forwards and backwards. Written by hand because
 * no library reads this format (it is not a unified diff): each file section names its operation, and an update
 * is a list of chunks whose context and `-` lines are searched for in the file, anchored by an optional `@@ line`.
 *
 *   *** Begin Patch
 *   *** Add File: path        (+ lines: the whole new file)
 *   *** Delete File: path
 *   *** Update File: path
 *   *** Move to: new/path     (optional)
 *   @@ optional anchor line
 *    context / -old / +new    (an empty line counts as empty context)
 *   *** End of File           (optional: the chunk ends at the end of the file)
 *   *** End Patch
 *
 * Searching is as forgiving as Codex's own: exact lines first, then ignoring trailing white space, then ignoring
 * white space at both ends. A chunk that cannot be found is an error, so a rebuilt step is never a guess.
 */

export type PatchOp =
  | { kind: 'add'; path: string; content: string }
  | { kind: 'delete'; path: string }
  | { kind: 'update'; path: string; moveTo?: string; chunks: Chunk[] };

export interface Chunk {
  anchor: string | null;
  oldLines: string[];
  newLines: string[];
  atEndOfFile: boolean;
}

export class PatchError extends Error {}

export function parsePatch(text: string): PatchOp[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let i = lines.findIndex((l) => l.trim() === '*** Begin Patch');
  if (i < 0) throw new PatchError('no "*** Begin Patch" line');
  i++;
  const ops: PatchOp[] = [];
  for (;;) {
    const line = lines[i];
    if (line === undefined) throw new PatchError('no "*** End Patch" line');
    if (line.trim() === '*** End Patch') return ops;
    let m: RegExpExecArray | null;
    if ((m = /^\*\*\* Add File: (.+)$/.exec(line))) {
      const body: string[] = [];
      for (i++; lines[i]?.startsWith('+'); i++) body.push(lines[i]!.slice(1));
      ops.push({ kind: 'add', path: m[1]!.trim(), content: body.length > 0 ? body.join('\n') + '\n' : '' });
    } else if ((m = /^\*\*\* Delete File: (.+)$/.exec(line))) {
      ops.push({ kind: 'delete', path: m[1]!.trim() });
      i++;
    } else if ((m = /^\*\*\* Update File: (.+)$/.exec(line))) {
      const op: PatchOp = { kind: 'update', path: m[1]!.trim(), chunks: [] };
      i++;
      const move = /^\*\*\* Move to: (.+)$/.exec(lines[i] ?? '');
      if (move) {
        op.moveTo = move[1]!.trim();
        i++;
      }
      i = parseChunks(lines, i, op.chunks);
      if (op.chunks.length === 0 && !op.moveTo) throw new PatchError(`update of ${op.path} has no changes`);
      ops.push(op);
    } else if (line.trim() === '') {
      i++;
    } else {
      throw new PatchError(`unexpected line in patch: ${JSON.stringify(line.slice(0, 80))}`);
    }
  }
}

function parseChunks(lines: string[], start: number, out: Chunk[]): number {
  let i = start;
  let chunk: Chunk | null = null;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('*** ') && line.trim() !== '*** End of File') break;
    if (line.trim() === '*** End of File') {
      if (chunk) chunk.atEndOfFile = true;
      continue;
    }
    if (line.startsWith('@@')) {
      chunk = { anchor: line.slice(2).trim() || null, oldLines: [], newLines: [], atEndOfFile: false };
      out.push(chunk);
      continue;
    }
    // The first chunk may start without an @@ line.
    chunk ??= out[out.push({ anchor: null, oldLines: [], newLines: [], atEndOfFile: false }) - 1]!;
    const body = line.slice(1);
    if (line.startsWith('-')) chunk.oldLines.push(body);
    else if (line.startsWith('+')) chunk.newLines.push(body);
    else {
      const ctx = line.startsWith(' ') ? body : line; // an empty line is empty context
      chunk.oldLines.push(ctx);
      chunk.newLines.push(ctx);
    }
  }
  return i;
}

/** The text after applying an update's chunks (forwards), or before it (`reverse`: the chunks undone). */
export function applyChunks(text: string, chunks: Chunk[], reverse = false): string {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop(); // the final newline is not a line of its own
  let at = 0;
  for (const c of chunks) {
    const from = reverse ? c.newLines : c.oldLines;
    const to = reverse ? c.oldLines : c.newLines;
    if (c.anchor !== null) {
      const a = seek(lines, [c.anchor], at, false);
      if (a < 0) throw new PatchError(`anchor line not found: ${JSON.stringify(c.anchor.slice(0, 80))}`);
      at = a + 1;
    }
    if (from.length === 0) {
      lines.splice(lines.length, 0, ...to); // a pure addition goes at the end
      at = lines.length;
      continue;
    }
    // A chunk whose last line is empty context may match a file that ends without it.
    let pattern = from;
    let replacement = to;
    let found = seek(lines, pattern, at, c.atEndOfFile);
    if (found < 0 && pattern.at(-1) === '') {
      pattern = pattern.slice(0, -1);
      replacement = replacement.at(-1) === '' ? replacement.slice(0, -1) : replacement;
      found = seek(lines, pattern, at, c.atEndOfFile);
    }
    if (found < 0)
      throw new PatchError(`lines not found: ${JSON.stringify(from.slice(0, 3).join('\n').slice(0, 120))}`);
    lines.splice(found, pattern.length, ...replacement);
    at = found + replacement.length;
  }
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}

const MATCHERS: ((s: string) => string)[] = [(s) => s, (s) => s.trimEnd(), (s) => s.trim()];

function seek(lines: string[], pattern: string[], from: number, atEnd: boolean): number {
  for (const norm of MATCHERS) {
    const want = pattern.map(norm);
    const starts = atEnd ? [lines.length - pattern.length] : range(from, lines.length - pattern.length + 1);
    for (const s of starts) {
      if (s < 0) continue;
      if (want.every((w, k) => norm(lines[s + k]!) === w)) return s;
    }
  }
  return -1;
}

function range(a: number, b: number): number[] {
  const out: number[] = [];
  for (let i = a; i < b; i++) out.push(i);
  return out;
}

/**
 * Cline's `replace_in_file` edits: SEARCH/REPLACE blocks (`------- SEARCH` … `=======` … `+++++++ REPLACE`,
 * or the older `<<<<<<< SEARCH` … `>>>>>>> REPLACE`), replayed forwards (the file before → after) as Cline
 * applies them, and backwards (after → before) to recover a file's earlier content from a later one. Each
 * returns null when the blocks do not apply to the text given. Pure.
 */

export interface SearchReplaceBlock {
  search: string;
  replace: string;
}

const SEARCH_START = /^(?:-{3,}|<{3,}) SEARCH>?$/;
const SEARCH_END = /^={3,}$/;
const REPLACE_END = /^(?:\+{3,}|>{3,}) REPLACE>?$/;

/** True when the text holds at least one SEARCH marker line (a replace_in_file diff, not a whole file). */
export function looksLikeSearchReplace(text: string): boolean {
  return text.split('\n').some((l) => SEARCH_START.test(l));
}

/**
 * The blocks of a diff, or null when it is not well formed (a block left open). Like Cline, each line kept
 * inside a block ends with '\n', so a block's text is whole lines.
 */
export function parseSearchReplace(diff: string): SearchReplaceBlock[] | null {
  const blocks: SearchReplaceBlock[] = [];
  let state: 'out' | 'search' | 'replace' = 'out';
  let search = '';
  let replace = '';
  for (const line of diff.split('\n')) {
    if (state === 'out') {
      if (SEARCH_START.test(line)) {
        state = 'search';
        search = '';
      }
    } else if (state === 'search') {
      if (SEARCH_END.test(line)) {
        state = 'replace';
        replace = '';
      } else search += `${line}\n`;
    } else if (REPLACE_END.test(line)) {
      blocks.push({ search, replace });
      state = 'out';
    } else replace += `${line}\n`;
  }
  return state === 'out' && blocks.length > 0 ? blocks : null;
}

/**
 * The file after the blocks, as Cline builds it: each block's SEARCH is looked for after the previous
 * block (then anywhere, for blocks out of order), exactly, else line by line ignoring surrounding spaces.
 * An empty SEARCH replaces the whole file (creates it when empty).
 */
export function applySearchReplace(before: string, blocks: SearchReplaceBlock[]): string | null {
  let text = before;
  let cursor = 0;
  for (const b of blocks) {
    if (b.search === '') {
      text = b.replace;
      cursor = b.replace.length;
      continue;
    }
    const at = findBlock(text, b.search, cursor) ?? findBlock(text, b.search, 0);
    if (!at) return null;
    text = text.slice(0, at[0]) + b.replace + text.slice(at[1]);
    cursor = at[0] + b.replace.length;
  }
  return text;
}

/**
 * The file before the blocks, given the file right after them: each REPLACE text (last block first) is put
 * back to its SEARCH text. Accepted only when replaying the blocks on the result gives `after` again; null
 * when that fails or cannot be told (an empty SEARCH replaced the whole file; an empty REPLACE left no trace
 * of where its text stood).
 */
export function reverseSearchReplace(after: string, blocks: SearchReplaceBlock[]): string | null {
  let text = after;
  let cursor = after.length;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!;
    if (b.search === '' || b.replace === '') return null;
    let at = text.lastIndexOf(b.replace, cursor - b.replace.length);
    if (at < 0) at = text.lastIndexOf(b.replace);
    if (at < 0) return null;
    text = text.slice(0, at) + b.search + text.slice(at + b.replace.length);
    cursor = at;
  }
  return applySearchReplace(text, blocks) === after ? text : null;
}

function findBlock(text: string, search: string, from: number): [number, number] | null {
  const exact = text.indexOf(search, from);
  if (exact >= 0) return [exact, exact + search.length];
  return lineTrimmedMatch(text, search, from);
}

/** Cline's fallback: the SEARCH lines equal a run of the file's lines once each is trimmed. */
function lineTrimmedMatch(text: string, search: string, from: number): [number, number] | null {
  const lines = text.split('\n');
  const want = search.split('\n');
  if (want.at(-1) === '') want.pop();
  if (want.length === 0) return null;
  const starts: number[] = [];
  let offset = 0;
  for (const l of lines) {
    starts.push(offset);
    offset += l.length + 1;
  }
  for (let i = 0; i + want.length <= lines.length; i++) {
    if (starts[i]! < from) continue;
    let ok = true;
    for (let j = 0; j < want.length && ok; j++) ok = lines[i + j]!.trim() === want[j]!.trim();
    if (!ok) continue;
    const end = Math.min(starts[i + want.length - 1]! + lines[i + want.length - 1]!.length + 1, text.length);
    return [starts[i]!, end];
  }
  return null;
}

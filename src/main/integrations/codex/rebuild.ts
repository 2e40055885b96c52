/**
 * The files as they were after each applied patch of a rollout. A patch's add carries the whole file and an
 * update carries only chunks, so an update needs the file as it was before: from an earlier add in the same
 * rollout, or — for a file that existed before the session — from the folder's file as it is now, walked back
 * through the later patches (each one's chunks undone). Where neither holds, or a chunk does not apply, the
 * step is reported as not rebuilt with its reason, never guessed.
 */
import { isAbsolute, relative } from 'node:path';
import { applyChunks, parsePatch, PatchError, type PatchOp } from './patch';

/** A file's content, or null when it does not exist. */
export type FileState = string | null;

export interface PatchStep {
  /** Index of the patch item in the rollout's items. */
  item: number;
  /** Every touched path's state after this step, where known. */
  states: Map<string, FileState>;
  rebuilt: string[];
  missing: { path: string; reason: string }[];
}

export interface Rebuild {
  /** Each touched path's state before the first patch, where known (what the first prompt saw). */
  initial: Map<string, FileState>;
  steps: PatchStep[];
  /** Every workspace-relative path a step touches (what the checkpoint trees set). */
  touched: string[];
  /** Patches that could not even be read, by item index. */
  unreadable: { item: number; reason: string }[];
}

interface ParsedStep {
  item: number;
  ops: { op: PatchOp; path: string | null; moveTo: string | null; outside: string | null }[];
}

const UNKNOWN = Symbol('unknown');
type Known = FileState | typeof UNKNOWN;

export function rebuildPatches(
  patches: { item: number; input: string }[],
  opts: { cwd: string | null; root: string; readWorkspace: (rel: string) => FileState | undefined },
): Rebuild {
  const unreadable: Rebuild['unreadable'] = [];
  const parsed: ParsedStep[] = [];
  for (const p of patches) {
    try {
      const ops = parsePatch(p.input).map((op) => {
        const path = toWorkspacePath(op.path, opts);
        const moveTo = op.kind === 'update' && op.moveTo ? toWorkspacePath(op.moveTo, opts) : null;
        const outside = path === null ? op.path : op.kind === 'update' && op.moveTo && !moveTo ? op.moveTo : null;
        return { op, path, moveTo, outside };
      });
      parsed.push({ item: p.item, ops });
    } catch (e) {
      unreadable.push({ item: p.item, reason: `patch not readable: ${(e as Error).message}` });
    }
  }
  const touched = new Set<string>();
  for (const s of parsed)
    for (const o of s.ops) {
      if (o.path) touched.add(o.path);
      if (o.moveTo) touched.add(o.moveTo);
    }
  const initial = walkBack(parsed, touched, opts.readWorkspace);
  const steps: PatchStep[] = [];
  const now = new Map<string, Known>(initial);
  for (const s of parsed) {
    const rebuilt: string[] = [];
    const missing: PatchStep['missing'] = [];
    for (const o of s.ops) {
      if (o.outside !== null || o.path === null) {
        missing.push({ path: o.op.path, reason: 'outside the workspace' });
        continue;
      }
      const after = forward(o.op, now.get(o.path) ?? UNKNOWN);
      if ('error' in after) {
        missing.push({ path: o.moveTo ?? o.path, reason: after.error });
        now.set(o.path, UNKNOWN);
        if (o.moveTo) now.set(o.moveTo, UNKNOWN);
        continue;
      }
      if (o.moveTo && o.moveTo !== o.path) {
        now.set(o.path, null);
        now.set(o.moveTo, after.state);
        rebuilt.push(o.moveTo);
      } else {
        now.set(o.path, after.state);
        rebuilt.push(o.path);
      }
    }
    steps.push({ item: s.item, states: knownOnly(now), rebuilt, missing });
  }
  return { initial: knownOnly(initial), steps, touched: [...touched].sort(), unreadable };
}

function knownOnly(m: Map<string, Known>): Map<string, FileState> {
  const out = new Map<string, FileState>();
  for (const [p, v] of m) if (v !== UNKNOWN) out.set(p, v);
  return out;
}

function forward(op: PatchOp, before: Known): { state: FileState } | { error: string } {
  if (op.kind === 'add') return { state: op.content };
  if (op.kind === 'delete') return { state: null };
  if (before === UNKNOWN)
    return {
      error:
        'its content before this step is unknown (not added in this session, and the folder no longer leads back to it)',
    };
  if (before === null) return { error: 'the file does not exist at this step' };
  try {
    return { state: op.chunks.length > 0 ? applyChunks(before, op.chunks) : before };
  } catch (e) {
    if (e instanceof PatchError)
      return {
        error: `the patch does not apply to the rebuilt file (${e.message}); a shell command may have changed it`,
      };
    throw e;
  }
}

/**
 * Each touched path's state before the first patch, found by undoing the patches from the folder as it is now.
 * A path the walk cannot lead back through (a delete, a chunk that does not match) is unknown there.
 */
function walkBack(
  parsed: ParsedStep[],
  touched: Set<string>,
  readWorkspace: (rel: string) => FileState | undefined,
): Map<string, Known> {
  const state = new Map<string, Known>();
  for (const p of touched) {
    const v = readWorkspace(p);
    state.set(p, v === undefined ? UNKNOWN : v);
  }
  for (let i = parsed.length - 1; i >= 0; i--) {
    for (const o of [...parsed[i]!.ops].reverse()) {
      if (!o.path || o.outside !== null) continue;
      const op = o.op;
      if (op.kind === 'add') state.set(o.path, null);
      else if (op.kind === 'delete') state.set(o.path, UNKNOWN);
      else {
        const after = state.get(o.moveTo ?? o.path) ?? UNKNOWN;
        let before: Known = UNKNOWN;
        if (typeof after === 'string') {
          try {
            before = op.chunks.length > 0 ? applyChunks(after, op.chunks, true) : after;
          } catch (e) {
            if (!(e instanceof PatchError)) throw e;
          }
        }
        if (o.moveTo && o.moveTo !== o.path) state.set(o.moveTo, UNKNOWN);
        state.set(o.path, before);
      }
    }
  }
  return state;
}

function toWorkspacePath(p: string, opts: { cwd: string | null; root: string }): string | null {
  const norm = p.replace(/\\/g, '/');
  let rel: string;
  if (isAbsolute(norm) || /^[A-Za-z]:\//.test(norm)) {
    const base = opts.cwd ?? opts.root;
    rel = relative(base, norm).replace(/\\/g, '/');
  } else rel = norm;
  rel = rel
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/');
  if (rel === '' || rel.split('/').includes('..')) return null;
  return rel;
}

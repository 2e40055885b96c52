/**
 * The paths a warm snapshot (treeEdit.ts) looks at for the hints it was given, so that it records what a full
 * scan would (fastPaths.test.ts compares the two). A hint names a path as the agent wrote it, which is not
 * always the path the folder holds it under:
 *  - through a symlinked folder (`current -> v2`, edit `current/x.ts`): a full scan captures the link as a link
 *    and the file at its real path, so the hint stands for the link itself and, when the real path lies inside
 *    the folder, that path (treating the hint as a missing file would drop the link from the tree);
 *  - below something that is not a folder (a file, or nothing any more): the hint stands for that ancestor,
 *    judged as a whole (a file stays a file; a vanished folder leaves with all it held);
 *  - on a case-insensitive folder, in another spelling: the hint stands for the path as the disk spells it.
 * Returns null when a resolved path is one a warm snapshot must not judge (warmScope.ts): a full scan then runs.
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { spelledOnDisk } from './caseInsensitive';
import { warmHintOk } from './warmScope';

export function resolveHints(root: string, hints: readonly string[], caseInsensitive: boolean): string[] | null {
  const out = new Set<string>();
  for (const hint of hints) {
    for (const p of resolveOne(root, hint)) {
      if (!warmHintOk(p)) return null;
      out.add(caseInsensitive ? (spelledOnDisk(root, p) ?? p) : p);
    }
  }
  return [...out].sort();
}

function resolveOne(root: string, hint: string): string[] {
  const segs = hint.split('/');
  for (let i = 1; i < segs.length; i++) {
    const ancestor = segs.slice(0, i).join('/');
    const st = lstatSync(path.join(root, ancestor), { throwIfNoEntry: false });
    if (st?.isDirectory()) continue;
    if (!st?.isSymbolicLink()) return [ancestor];
    const real = realInside(root, hint);
    // Its folders are real now; one may still be a file (a link to a file, named as a folder).
    return real === null ? [ancestor] : [ancestor, ...resolveOne(root, real)];
  }
  return [hint];
}

/** The workspace path a path through a symlink really names, or null when it leads out of the folder (or nowhere). */
function realInside(root: string, rel: string): string | null {
  let real: string;
  try {
    // The folder holding it, so a deleted file still resolves (its removal is what the hint reports).
    real = path.join(realpathSync(path.join(root, path.dirname(rel))), path.basename(rel));
  } catch {
    return null;
  }
  const inside = path.relative(realpathSync(root), real);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) return null;
  return inside.split(path.sep).join('/');
}

/**
 * I9, first half: what each planned path of a restore holds — its stat identity and the blob the safety tree has for
 * it — taken once its safety snapshot has begun (while it scans, or right after: restore/prepare.ts). The apply compares against this immediately before it replaces or
 * deletes the path (shadow/apply.ts), so a write that lands after the snapshot is never overwritten unsaved.
 *
 * The snapshot and this look are not one instant: a file whose times fall within the doubt window of the moment
 * the snapshot started is hashed now, and if its content is no longer the safety tree's, the restore has not
 * begun yet and can simply take a new snapshot (transaction.ts) or stop.
 */
import path from 'node:path';
import {
  diskBlob,
  identityOf,
  inDoubt,
  nowNs,
  recordedIdentity,
  sameStat,
  type Expectation,
} from '../shadow/fileIdentity';
import { changedError, type PlacedFile } from '../shadow/apply';
import { foldCase } from '../shadow/caseInsensitive';

/**
 * `safetyBlobs`: path → blob id in the safety tree (absent: the safety tree has no file there). `placedBefore`: what
 * the last restore of this process put in place, as it was right after its rename (ShadowRepo.placedLately).
 */
export async function captureIdentities(
  root: string,
  paths: readonly string[],
  safetyBlobs: ReadonlyMap<string, string>,
  snapshotStartedNs: bigint,
  caseInsensitive = false,
  placedBefore?: ReadonlyMap<string, PlacedFile>,
): Promise<Map<string, Expectation>> {
  const out = new Map<string, Expectation>();
  // On a case-insensitive folder a path names the file of any spelling: the safety tree holds it as on disk.
  const folded = caseInsensitive ? new Map([...safetyBlobs].map(([p, b]) => [foldCase(p), b])) : null;
  const moved: string[] = [];
  for (const rel of paths) {
    const abs = path.join(root, rel);
    const seenAtNs = nowNs();
    const stat = await recordedIdentity(abs);
    const blob = safetyBlobs.get(rel) ?? folded?.get(foldCase(rel)) ?? null;
    const onDisk = stat && stat.type !== 'dir' ? 'something' : null;
    const ours = placedBefore?.get(rel);
    // Exactly as our own rename left it, ctime included, and its mtime older than that rename: nothing wrote to it
    // since (a write moves the mtime), so it holds what we put there — an undo right after its restore hashes nothing.
    const ctimeOurs =
      !!ours &&
      !!stat &&
      ours.blob === blob &&
      sameStat(identityOf(ours.placed), stat) &&
      !inDoubt(stat, ours.placed.ctimeNs, { ignoreCtime: true });
    let same: boolean;
    if ((blob === null) !== (onDisk === null)) same = false;
    else if (blob === null || !stat || ctimeOurs) same = true;
    else if (inDoubt(stat, snapshotStartedNs)) same = (await diskBlob(abs, stat)) === blob;
    else same = true; // untouched since before the snapshot began: the snapshot read this very content
    if (!same) moved.push(rel);
    out.set(rel, { blob, stat, seenAtNs, ...(ctimeOurs ? { ctimeOurs: true as const } : {}) });
  }
  if (moved.length > 0) throw changedError(moved, ' (during the safety checkpoint); nothing was changed');
  return out;
}

/**
 * What a killed apply leaves beside the files it was changing (atomicWrite.ts names them): new content not yet
 * renamed in (`.new`: dropped) and replaced or deleted files not yet dropped (`.old`). Recovery runs this before
 * its rollback: an `.old` of the restore goes back in place when the path still holds what the restore wrote
 * (or nothing), else it is kept under a visible name — it may hold what someone wrote during the restore.
 * An `.old` of a rollback run only ever holds the restore's version: dropped. A file a put-back held aside
 * (`.aside`) is settled first (putInPlace.ts).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { sidePath } from './atomicWrite';
import { lstatIdentity } from './fileIdentity';
import { putInPlace, relKept, settleAside } from './putInPlace';

/** `wrote`: path → the blob the interrupted run was putting there (null: it was deleting it). Returns kept names. */
export async function settleLeftovers(
  root: string,
  tag: string,
  paths: readonly string[],
  wrote: ReadonlyMap<string, string | null>,
  opts: { oldIsOurs: boolean },
): Promise<string[]> {
  const kept: string[] = [];
  for (const rel of paths) {
    const abs = path.join(root, rel);
    await fs.rm(sidePath(abs, tag, 'new'), { force: true }).catch(() => {});
    kept.push(...relKept(root, await settleAside(abs, tag, wrote.get(rel) ?? null)));
    const old = sidePath(abs, tag, 'old');
    const oldSt = await lstatIdentity(old).catch(() => null);
    if (!oldSt) continue;
    if (opts.oldIsOurs) {
      await fs.rm(old, { force: true });
      continue;
    }
    const now = await lstatIdentity(abs);
    if (now && now.ino === oldSt.ino && now.type === oldSt.type) {
      await fs.rm(old, { force: true }); // killed between the link and the rename: the target is still the old file
      continue;
    }
    const put = await putInPlace(abs, old, wrote.get(rel) ?? null, tag);
    kept.push(...relKept(root, put.kept));
  }
  return kept;
}

/**
 * Files a restore replaced, kept instead of unlinked (issue 15): a later restore or undo that puts the same content
 * back at the same path renames the kept file in instead of writing, syncing and later freeing a new one. An undo
 * then gives back the very files its restore replaced, and a restore back and forth writes no content at all
 * (`bench/fsFloor.ts`, rung `reused`: 4 ms against 17 at 1,000 files).
 *
 * Kept in the workspace's data folder, a folder per transaction with a manifest of what each file holds, only where
 * that folder is on the workspace's file system (a rename across is refused; where it is refused anyway, the file
 * is dropped as before). Never the only copy of anything: each kept file's content is in its transaction's safety
 * checkpoint. So a kept file that changed since (written through a descriptor held across the restore) is simply
 * not reused — it is looked at as I9 looks at a file before replacing it (fileIdentity.ts) — and the folders of
 * earlier transactions are dropped by the next one.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type BigIntStats,
} from 'node:fs';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../privateFs';
import {
  identityOf,
  loadStat,
  nowNs,
  stillAsExpected,
  storeStat,
  withFineness,
  type Expectation,
  type StatIdentity,
  type StoredStat,
} from './fileIdentity';

const MANIFEST = 'manifest.json';
const ATTIC = 'attic';

interface KeptRecord {
  /** The file's name in its transaction's folder. */
  name: string;
  blob: string;
  /** Its permission bits where it was (kept, it is private: PRIVATE_FILE_MODE). */
  perm: number;
  /** Its stat data once kept (its times as the restore checked them), and when those were seen (ns). */
  stat: StoredStat;
  seenAtNs: string;
  /**
   * A syncfs wrote out its content after it was kept (keptAreDurable): taken back unchanged, it is renamed into
   * place with no sync of its own. Absent where its transaction synced folder by folder (RETRACE_SYNCFS=0,
   * not Linux), which leaves a file's content as it was.
   */
  durable?: true;
}

export class Attic {
  private readonly kept = new Map<string, KeptRecord>();
  private count = 0;
  /** Earlier transactions' kept files, by path: the newest of each. */
  private readonly earlier = new Map<string, { rid: string; record: KeptRecord }>();
  /** Transactions this one reused a file of. */
  private readonly reusedFrom = new Set<string>();
  /** This transaction's folder is made (once, by its first keep). */
  private made = false;

  private constructor(
    private readonly dir: string,
    private readonly rid: string,
  ) {
    for (const other of listFolders(dir).sort()) {
      if (other === rid) continue;
      for (const [rel, record] of readManifest(path.join(dir, other))) this.earlier.set(rel, { rid: other, record });
    }
  }

  /** The attic of transaction `rid`; null where the data folder is not on the workspace's file system. */
  static open(wsDir: string, root: string, rid: string): Attic | null {
    try {
      if (statSync(wsDir).dev !== statSync(root).dev) return null;
    } catch {
      return null;
    }
    return new Attic(path.join(wsDir, ATTIC), rid);
  }

  /**
   * Keep `side` (the file that was at `rel`, holding `was.blob` as the restore checked just now, when it looked like
   * `now`, with `nlink` names) instead of unlinking it. Returns the folder it went to (to sync with the side file's own); null when it
   * cannot be kept, and the caller drops it.
   */
  keep(rel: string, side: string, was: Expectation, now: StatIdentity, nlink: number): string | null {
    if (was.blob === null || !was.stat || was.stat.type !== 'file') return null;
    // A file with another name elsewhere (a hard link) is not kept: its mode is not ours to change.
    if (now.type !== 'file' || nlink !== 1) return null;
    const own = path.join(this.dir, this.rid);
    const name = String(this.count++);
    const dest = path.join(own, name);
    try {
      if (!this.made) mkdirSync(own, { recursive: true, mode: PRIVATE_DIR_MODE });
      this.made = true;
      renameSync(side, dest);
      // Private while it is in the data folder, as everything there (its own bits go back with it: take).
      chmodSync(dest, PRIVATE_FILE_MODE);
    } catch {
      return null;
    }
    // As the check just saw it, with the bits we gave it: the rename and the chmod moved only its ctime, which take
    // does not compare; a write since moves its mtime, which is recorded as the restore checked it (below).
    const kept = withFineness({ ...now, mode: (now.mode & ~0o7777) | PRIVATE_FILE_MODE }, dest);
    // Its mtime as the restore checked it: only the rename and the chmod (ctime, mode) are ours since.
    this.kept.set(rel, {
      name,
      blob: was.blob,
      perm: was.stat.mode & 0o7777,
      stat: storeStat({ ...kept, mtimeNs: was.stat.mtimeNs }),
      seenAtNs: String(was.seenAtNs ?? nowNs()),
    });
    return own;
  }

  /** Whether an earlier transaction kept a file holding `blob` for `rel` (take may still find it changed since). */
  holds(rel: string, blob: string): boolean {
    return this.earlier.get(rel)?.record.blob === blob;
  }

  /** Every file kept so far is on disk, content included: a syncfs of the file system came after it was kept. */
  keptAreDurable(): void {
    for (const record of this.kept.values()) record.durable = true;
  }

  /**
   * A kept file of an earlier transaction that holds exactly `blob` for `rel` (the same exec bit too), to be renamed
   * into place instead of a new file, and whether its content is on disk already; null when there is none or it
   * changed since it was kept.
   */
  async take(
    rel: string,
    blob: string,
    exec: boolean,
  ): Promise<{ file: string; durable: boolean; stat: BigIntStats } | null> {
    const found = this.earlier.get(rel);
    if (!found || found.record.blob !== blob) return null;
    const file = path.join(this.dir, found.rid, found.record.name);
    const r = found.record;
    if (((r.perm & 0o111) !== 0) !== exec) return null;
    let stat: BigIntStats | undefined;
    try {
      stat = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    } catch {
      return null;
    }
    if (!stat) return null;
    const now = identityOf(stat);
    if (now.type !== 'file') return null;
    const expect: Expectation = { blob, stat: loadStat(r.stat), seenAtNs: BigInt(r.seenAtNs) };
    // Kept by a rename of ours, which moved its ctime: a write since moves its mtime (or, in doubt, its content).
    if (!(await stillAsExpected(file, now, expect, { ignoreCtime: true }))) return null;
    try {
      chmodSync(file, r.perm);
    } catch {
      return null;
    }
    this.earlier.delete(rel);
    this.reusedFrom.add(found.rid);
    // Unchanged since it was kept (above), so a syncfs since then covers what it holds now. Its stat data as seen
    // before the chmod, which moved only its mode and ctime.
    return { file, durable: r.durable === true, stat };
  }

  /**
   * Once the transaction is in the ledger: its manifest written, and the folders of transactions older than the ones
   * it reused from dropped (what they still hold is no longer in place anywhere a restore would put it back from).
   */
  finish(): void {
    const own = path.join(this.dir, this.rid);
    try {
      if (this.kept.size > 0) {
        const file = path.join(own, MANIFEST);
        writeFileSync(file, JSON.stringify(Object.fromEntries(this.kept)), { mode: 0o600 });
        remember(file, [...this.kept]);
      }
      for (const other of listFolders(this.dir))
        if (other !== this.rid && !this.reusedFrom.has(other))
          rmSync(path.join(this.dir, other), { recursive: true, force: true });
    } catch {
      // The transaction is done and in the ledger: an attic left as it is only keeps files a while longer.
    }
  }
}

/** Every kept file of the workspace (`retrace forget` and `gc`: nothing they drop may stay here). */
export function dropAttic(wsDir: string): void {
  rmSync(path.join(wsDir, ATTIC), { recursive: true, force: true });
}

function listFolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/**
 * Manifests this process wrote or read, with the stat data the file had then: the next transaction (an undo right
 * after its restore) reads the one the last wrote with one stat instead of parsing it again. Bounded: only the newest.
 */
const manifests = new Map<string, { seen: string; records: [string, KeptRecord][] }>();
const MANIFESTS_REMEMBERED = 8;

function manifestStat(file: string): string | null {
  const st = statSync(file, { bigint: true, throwIfNoEntry: false });
  return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : null;
}

function remember(file: string, records: [string, KeptRecord][]): void {
  const seen = manifestStat(file);
  manifests.delete(file);
  if (seen) manifests.set(file, { seen, records });
  for (const old of manifests.keys()) if (manifests.size > MANIFESTS_REMEMBERED) manifests.delete(old);
}

function readManifest(folder: string): [string, KeptRecord][] {
  const file = path.join(folder, MANIFEST);
  try {
    const known = manifests.get(file);
    if (known && known.seen === manifestStat(file)) return known.records;
    const records = Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, KeptRecord>);
    remember(file, records);
    return records;
  } catch {
    return []; // none (a transaction that kept nothing, or was killed): its files are never reused, only dropped
  }
}

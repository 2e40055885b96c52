/**
 * Detect and repair a damaged shadow repository (issue 6, PRODUCT.md I5/I8).
 *
 * Damage we expect after crashes, full disks and sync tools: an empty or truncated loose object, a missing or
 * garbled HEAD, a broken index, a half-written ref. The rule is "keep every checkpoint that can be kept":
 *  - nothing is deleted: damaged files are moved to <ws.dir>/damaged/<time>/ first;
 *  - a lost blob whose content is still in the folder is written back (the newest checkpoint's files usually are);
 *  - a session ref that is garbled or reaches a lost object is moved to the newest checkpoint of that session
 *    whose whole history is intact; checkpoints that lost content are listed as unavailable (their messages stay);
 *    a checkpoint whose own files are intact but whose history is not is salvaged as a new commit under
 *    refs/retrace/salvaged/<old hash>, so its files stay reachable;
 *  - the index (only a cache of the last snapshot) is rebuilt from the newest intact checkpoint.
 *
 * Cost: `quickCheck` reads a few small files and stats loose objects (run by `retrace status`); `repairShadowRepo`
 * does the full work and is run only when quickCheck finds something or a git command failed with an error
 * for which `looksLikeCorruption` is true. Both are idempotent: running them on a healthy repository changes nothing.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import type { RecoveryReport } from '../../../shared/model';
import { objectId } from '../git/looseObject';
import { GitError } from '../git/errors';
import { execGit } from '../git/exec';
import { gitEnv } from '../git/env';
import { RecoveryLog } from '../journal';
import { indexChecksumOk } from './indexRead';
import { SessionStore } from '../sessions/store';
import { mkdirPrivate, writeFilePrivate } from '../privateFs';

export interface RepairContext {
  /** The shadow repository (<ws.dir>/shadow.git). */
  gitDir: string;
  /** The user's folder: lost blobs may still be there. */
  workTree: string;
  /** Each session's checkpoint hashes in message order: lets repair re-point a damaged session ref. */
  sessions?: { id: string; hashes: string[] }[];
}

export interface RepairOutcome {
  reports: RecoveryReport[];
  /** Checkpoints whose files could not all be kept. */
  unavailable: string[];
}

export interface Problem {
  what: 'head' | 'layout' | 'object' | 'ref' | 'packed-refs' | 'index' | 'config';
  detail: string;
}

const HEX40 = /^[0-9a-f]{40}$/;
const DEFAULT_HEAD = 'ref: refs/heads/main\n';
const SESSION_PREFIX = 'refs/retrace/sessions/';
const SALVAGE_PREFIX = 'refs/retrace/salvaged/';
/** File written next to shadow.git listing unavailable checkpoints (read by the coordinator). */
export const UNAVAILABLE_FILE = 'unavailable.json';

/**
 * How ShadowRepo uses this module, so the hooks there stay one line each. Repairs run only under the
 * writer lock (issue 10): what a reader takes for damage may be another process's repack in flight.
 *  - beforeOpen(): (writer) a repository whose HEAD/config/layout is damaged is repaired before git is asked
 *    anything;
 *  - onFailure(e): (writer) a git failure that looks like corruption triggers one repair, and the caller
 *    retries once;
 *  - inspect(): (anyone, read-only) the cheap check; `retrace status` reports what it finds as pending and
 *    hands it to a writer;
 *  - checkup(): (writer) the cheap check (new loose objects verified since the last checkup), and a repair
 *    only when it finds something.
 * Repairs triggered by beforeOpen/onFailure are written to the workspace's recovery log (shown by status);
 * checkup returns its reports to the caller, which logs them.
 */
export class ShadowDoctor {
  private repairedOnce = false;

  constructor(
    private readonly gitDir: string,
    private readonly workTree: string,
    private readonly wsDir: string,
  ) {}

  async beforeOpen(): Promise<void> {
    if (!(await isDir(this.gitDir))) return; // a new repository: nothing to repair
    // Structure and refs (a half-written ref must be fixed before anyone compares against it); the index and
    // the objects are left to onFailure/checkup.
    const structural = (await quickCheck(this.gitDir, { objects: false })).filter((p) => p.what !== 'index');
    if (structural.length === 0) return;
    new RecoveryLog(this.wsDir).add((await this.repair()).reports);
  }

  /** True when the failure looked like damage and a repair ran: the caller may retry once. */
  async onFailure(e: unknown): Promise<boolean> {
    if (this.repairedOnce) return false;
    const text = e instanceof GitError ? `${e.stderr}\n${e.message}` : e instanceof Error ? e.message : String(e);
    if (!(e instanceof GitError && e.kind === 'corrupt') && !looksLikeCorruption(text)) return false;
    this.repairedOnce = true;
    const outcome = await this.repair();
    // Nothing left to repair (say, a checkpoint already known to be unavailable): no retry, no log noise.
    if (outcome.reports.length === 0) return false;
    new RecoveryLog(this.wsDir).add(outcome.reports);
    return true;
  }

  /**
   * The cheap check, read-only as far as the repository goes: the problems it finds, in words. When there are
   * none, the loose objects it verified are marked verified (a hint file, not repository state).
   */
  async inspect(): Promise<string[]> {
    const marker = path.join(this.wsDir, VERIFIED_MARKER);
    const since = (await fs.stat(marker).catch(() => null))?.mtimeMs ?? 0;
    const started = Date.now();
    const problems = await quickCheck(this.gitDir, { objects: true, verifySince: since });
    if (problems.length === 0) await markVerified(marker, started);
    return problems.map((p) => p.detail);
  }

  async checkup(): Promise<RecoveryReport[]> {
    const marker = path.join(this.wsDir, VERIFIED_MARKER);
    const since = (await fs.stat(marker).catch(() => null))?.mtimeMs ?? 0;
    const started = Date.now();
    const problems = await quickCheck(this.gitDir, { objects: true, verifySince: since });
    const reports = problems.length > 0 ? (await this.repair()).reports : [];
    await markVerified(marker, started);
    return reports;
  }

  private async repair(): Promise<RepairOutcome> {
    const sessions = await new SessionStore(this.wsDir)
      .readAll()
      .then((states) =>
        states.map((s) => ({ id: s.header.id, hashes: s.messages.map((m) => m.hash).filter((h): h is string => !!h) })),
      )
      .catch(() => []);
    return repairShadowRepo({ gitDir: this.gitDir, workTree: this.workTree, sessions });
  }
}

/** <ws.dir>/shadow-verified: its mtime is when checkup last verified every loose object. */
const VERIFIED_MARKER = 'shadow-verified';

/** Objects written before `started` are verified; a clock step back only makes the next check do more. */
async function markVerified(marker: string, started: number): Promise<void> {
  await writeFilePrivate(marker, '').catch(() => undefined);
  await fs.utimes(marker, new Date(started - 2000), new Date(started - 2000)).catch(() => undefined);
}

/** True for git errors that mean "the repository's files are damaged" rather than "you asked for something wrong". */
export function looksLikeCorruption(text: string): boolean {
  return /index file corrupt|index file smaller than expected|bad index file|bad signature 0x|loose object [0-9a-f]+ .*is corrupt|object file .* is empty|unable to unpack|inflate: data stream error|bad tree object|packfile .* does not match|not a git repository|unable to read (tree|commit|blob)? ?[0-9a-f]{40}|invalid sha1 pointer|fatal: bad object|bad ref for|broken link from|missing (blob|tree|commit) [0-9a-f]{40}|HEAD is not a symbolic ref|invalid HEAD|corrupt (loose|packed)|garbage at end of loose object|reference broken|unexpected line in .*packed-refs|bad config line|unable to parse .*config/i.test(
    text,
  );
}

/**
 * Cheap health check: HEAD, layout, config, ref syntax, packed-refs, index checksum, ref tips present; with
 * `objects`, loose objects too (empty files always; full verification of those written since `verifySince`).
 */
export async function quickCheck(
  gitDir: string,
  opts: { objects?: boolean; verifySince?: number } = {},
): Promise<Problem[]> {
  const problems: Problem[] = [];
  const packed = await readText(path.join(gitDir, 'packed-refs'));
  const head = await readText(path.join(gitDir, 'HEAD'));
  if (head === null || !validHead(head))
    problems.push({ what: 'head', detail: head === null ? 'HEAD is missing' : 'HEAD is damaged' });
  for (const dir of ['objects', 'refs']) {
    if (!(await isDir(path.join(gitDir, dir)))) problems.push({ what: 'layout', detail: `${dir}/ is missing` });
  }
  const config = await readText(path.join(gitDir, 'config'));
  if (config !== null && !/^\s*\[core\]/m.test(config)) problems.push({ what: 'config', detail: 'config is damaged' });
  if (opts.objects) {
    for (const file of await looseObjectFiles(gitDir)) {
      const st = await fs.stat(file).catch(() => null);
      if (!st) continue;
      const id = path.basename(path.dirname(file)) + path.basename(file);
      if (st.size === 0) problems.push({ what: 'object', detail: `empty object file ${rel(gitDir, file)}` });
      else if (st.mtimeMs >= (opts.verifySince ?? 0) && (await looseObjectOk(file, id)) === false)
        problems.push({ what: 'object', detail: `damaged object file ${rel(gitDir, file)}` });
    }
    const tips = (await looseRefs(gitDir)).map(([, t]) => t.trim()).filter((t) => HEX40.test(t));
    for (const line of (packed ?? '').split('\n')) if (/^[0-9a-f]{40} refs\//.test(line)) tips.push(line.slice(0, 40));
    if (tips.length > 0) {
      const types = await execGit(['--git-dir', gitDir, 'cat-file', '--batch-check=%(objecttype)'], {
        stdin: tips.join('\n') + '\n',
        env: gitEnv(),
      }).catch(() => null);
      if (
        !types ||
        types.stdout
          .toString()
          .split('\n')
          .some((l) => l.endsWith('missing'))
      )
        problems.push({ what: 'ref', detail: 'a ref names a missing object' });
    }
  }
  for (const [file, text] of await looseRefs(gitDir)) {
    if (!validRefContent(text)) problems.push({ what: 'ref', detail: `damaged ref ${rel(gitDir, file)}` });
  }
  if (packed !== null && badPackedLines(packed).length > 0)
    problems.push({ what: 'packed-refs', detail: 'damaged packed-refs' });
  const index = await fs.readFile(path.join(gitDir, 'index')).catch(() => null);
  if (index && !indexChecksumOk(index)) problems.push({ what: 'index', detail: 'the shadow index is damaged' });
  return problems;
}

/**
 * Repair whatever is damaged. Safe to run at any time under the workspace lock; a healthy repository
 * yields no reports. Never throws for damage it can describe; it throws only if git itself cannot run.
 */
export async function repairShadowRepo(ctx: RepairContext): Promise<RepairOutcome> {
  const r = new Repairer(ctx);
  await r.run();
  return { reports: r.reports, unavailable: [...r.unavailable].sort() };
}

// ---------------------------------------------------------------------------------------------------------

class Repairer {
  readonly reports: RecoveryReport[] = [];
  readonly unavailable = new Set<string>();
  /** Checkpoint → the commit that keeps its files after its history broke. */
  readonly salvaged = new Map<string, string>();
  private readonly gitDir: string;
  private readonly quarantine: string;
  private quarantined = 0;
  private readonly env = gitEnv();

  constructor(private readonly ctx: RepairContext) {
    this.gitDir = ctx.gitDir;
    this.quarantine = path.join(path.dirname(ctx.gitDir), 'damaged', new Date().toISOString().replace(/[:.]/g, '-'));
  }

  private report(kind: RecoveryReport['kind'], detail: string): void {
    this.reports.push({ ts: new Date().toISOString(), kind, detail });
  }

  async run(): Promise<void> {
    await this.fixLayout();
    await this.fixRefFiles();
    const lost = await this.quarantineBadObjects();
    const restored = await this.restoreBlobsFromFolder();
    if (lost > 0) {
      const still = lost - restored;
      this.report(
        'repository-repaired',
        `moved ${lost} damaged object file(s) aside` +
          (restored > 0 ? `, rebuilt ${restored} from the files in the folder` : '') +
          (still > 0 ? `; ${still} could not be rebuilt` : ''),
      );
    }
    await this.fixRefs();
    await this.fixIndex();
    await this.writeUnavailable();
  }

  /** HEAD, objects/, refs/ and a readable config: without them git does not even see a repository. */
  private async fixLayout(): Promise<void> {
    await mkdirPrivate(this.gitDir);
    const made: string[] = [];
    for (const dir of ['objects', 'objects/info', 'objects/pack', 'refs', 'refs/heads']) {
      const p = path.join(this.gitDir, dir);
      if (!(await isDir(p))) {
        await mkdirPrivate(p);
        made.push(dir);
      }
    }
    const headFile = path.join(this.gitDir, 'HEAD');
    const head = await readText(headFile);
    if (head === null || !validHead(head)) {
      if (head !== null) await this.moveAside(headFile);
      await writeAtomic(headFile, DEFAULT_HEAD);
      this.report(
        'repository-repaired',
        head === null
          ? 'recreated the missing HEAD of the shadow repository'
          : 'replaced a damaged HEAD of the shadow repository',
      );
    }
    const config = path.join(this.gitDir, 'config');
    const configOk = await this.git(['config', '--file', config, '--list']).then(
      () => true,
      () => false,
    );
    if (!configOk) {
      await this.moveAside(config);
      await writeAtomic(config, '[core]\n\trepositoryformatversion = 0\n\tbare = false\n');
      this.report('repository-repaired', 'replaced a damaged shadow repository config');
    }
    if (made.length > 0) this.report('repository-repaired', `recreated missing ${made.join(', ')}`);
  }

  /** Loose ref files that are not a hash (half-written) and bad packed-refs lines are moved aside. */
  private async fixRefFiles(): Promise<void> {
    for (const [file, text] of await looseRefs(this.gitDir)) {
      if (validRefContent(text)) continue;
      await this.moveAside(file);
      this.report('checkpoint-ref-repaired', `moved aside the damaged ref ${rel(this.gitDir, file)}`);
    }
    const packedFile = path.join(this.gitDir, 'packed-refs');
    const packed = await readText(packedFile);
    if (packed !== null) {
      const bad = badPackedLines(packed);
      if (bad.length > 0) {
        const keep = packed.split('\n').filter((_, i) => !bad.includes(i));
        await this.copyAside(packedFile);
        await writeAtomic(packedFile, keep.join('\n').replace(/\n*$/, '\n'));
        this.report('checkpoint-ref-repaired', `dropped ${bad.length} damaged line(s) of packed-refs`);
      }
    }
  }

  /** Loose objects that are empty, do not inflate, or do not hash to their name are moved aside. */
  private async quarantineBadObjects(): Promise<number> {
    let n = 0;
    for (const file of await looseObjectFiles(this.gitDir)) {
      const id = path.basename(path.dirname(file)) + path.basename(file);
      if ((await looseObjectOk(file, id)) === false) {
        await this.moveAside(file);
        n++;
      }
    }
    return n;
  }

  /** Objects named by the checkpoints that are missing now, found by walking whatever is still readable. */
  private async missingObjects(): Promise<Map<string, string[]>> {
    // id → paths (from the trees that name it), so lost blobs can be looked for in the folder.
    const missing = new Map<string, string[]>();
    for (const hash of await this.allCheckpoints()) {
      const listing = await this.git(['rev-list', '--objects', '--missing=print', hash]).catch(() => null);
      if (listing === null) {
        if (!missing.has(hash)) missing.set(hash, []);
        continue;
      }
      for (const line of listing.split('\n')) {
        if (line.startsWith('?')) {
          const id = line.slice(1).trim();
          if (!missing.has(id)) missing.set(id, []);
        }
      }
    }
    if (missing.size === 0) return missing;
    for (const hash of await this.allCheckpoints()) {
      const tree = await this.git(['ls-tree', '-r', '-z', '--full-tree', hash]).catch(() => '');
      for (const entry of tree.split('\0')) {
        const m = /^(\d{6}) blob ([0-9a-f]{40})\t(.*)$/s.exec(entry);
        if (m && missing.has(m[2]!)) missing.get(m[2]!)!.push(m[3]!);
      }
    }
    return missing;
  }

  /** Write back each lost blob whose exact content is still a file (or symlink) of the folder. */
  private async restoreBlobsFromFolder(): Promise<number> {
    const missing = await this.missingObjects();
    let n = 0;
    for (const [id, paths] of missing) {
      for (const p of new Set(paths)) {
        const full = path.join(this.ctx.workTree, p);
        if (!isInside(this.ctx.workTree, full)) continue;
        const st = await fs.lstat(full).catch(() => null);
        if (!st) continue;
        const bytes = st.isSymbolicLink()
          ? Buffer.from(await fs.readlink(full, { encoding: 'buffer' }))
          : st.isFile()
            ? await fs.readFile(full).catch(() => null)
            : null;
        if (!bytes || blobId(bytes) !== id) continue;
        const written = (
          await execGit(['--git-dir', this.gitDir, 'hash-object', '-w', '--stdin', '--no-filters'], {
            stdin: bytes,
            env: this.env,
          })
        ).stdout
          .toString()
          .trim();
        if (written === id) {
          n++;
          break;
        }
      }
    }
    return n;
  }

  /** Every session ref ends at its newest checkpoint whose whole history is intact. */
  private async fixRefs(): Promise<void> {
    const sessions = new Map<string, string[]>((this.ctx.sessions ?? []).map((s) => [s.id, s.hashes]));
    const refs = await this.listRefs();
    for (const [ref] of refs) {
      if (ref.startsWith(SESSION_PREFIX) && !sessions.has(ref.slice(SESSION_PREFIX.length)))
        sessions.set(ref.slice(SESSION_PREFIX.length), []);
    }
    for (const [id, hashes] of sessions) {
      const ref = SESSION_PREFIX + id;
      const current = refs.get(ref) ?? null;
      const candidates = [...hashes];
      if (current && !candidates.includes(current)) candidates.push(current);
      // Availability of each checkpoint: its own files, and its whole history.
      const own = new Map<string, boolean>();
      const whole = new Map<string, boolean>();
      for (const h of candidates) {
        own.set(h, await this.closureIntact(h, false));
        whole.set(h, own.get(h)! && (await this.closureIntact(h, true)));
        if (!own.get(h)) this.unavailable.add(h);
      }
      const currentOk = current !== null && whole.get(current) === true;
      const newestOk = [...candidates].reverse().find((h) => whole.get(h)) ?? null;
      if (!currentOk) {
        if (newestOk) await this.git(['update-ref', ref, newestOk]);
        else if (current) await this.git(['update-ref', '-d', ref]).catch(() => undefined);
        const lostNote = [...this.unavailable].filter((h) => candidates.includes(h));
        this.report(
          'checkpoint-ref-repaired',
          `session ${id}: ` +
            (newestOk
              ? `ref moved to the newest intact checkpoint ${newestOk.slice(0, 7)}`
              : 'no intact checkpoint is left; ref removed') +
            (lostNote.length > 0 ? `; unavailable: ${lostNote.map((h) => h.slice(0, 7)).join(', ')}` : ''),
        );
      }
      // Checkpoints after the ref whose files are intact but whose history is not: keep their files reachable.
      for (const h of candidates) {
        if (own.get(h) && !whole.get(h)) await this.salvage(h, newestOk);
      }
    }
    // Any other ref (safety checkpoints, …) that reaches a lost object would break gc: salvage or drop it.
    for (const [ref, hash] of await this.listRefs()) {
      if (ref.startsWith(SESSION_PREFIX) || ref.startsWith(SALVAGE_PREFIX)) continue;
      if (await this.closureIntact(hash, true)) continue;
      if (await this.closureIntact(hash, false)) await this.salvage(hash, null);
      else this.unavailable.add(hash);
      await this.git(['update-ref', '-d', ref]).catch(() => undefined);
      this.report('checkpoint-ref-repaired', `removed ${ref}: it reached lost objects`);
    }
  }

  /** Re-commit an intact tree whose history is damaged, under refs/retrace/salvaged/<old hash>. */
  private async salvage(hash: string, parent: string | null): Promise<void> {
    const ref = SALVAGE_PREFIX + hash;
    const existing = await this.git(['rev-parse', '--verify', '--quiet', ref]).then(
      (out) => out.trim(),
      () => null,
    );
    if (existing) {
      this.salvaged.set(hash, existing);
      return;
    }
    const tree = (await this.git(['rev-parse', `${hash}^{tree}`])).trim();
    const args = ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', `salvaged checkpoint ${hash}`];
    const salvaged = (
      await execGit(
        ['--git-dir', this.gitDir, '-c', 'user.name=Retrace', '-c', 'user.email=retrace@localhost', ...args],
        { env: this.env },
      )
    ).stdout
      .toString()
      .trim();
    await this.git(['update-ref', ref, salvaged]);
    this.salvaged.set(hash, salvaged);
    this.report(
      'checkpoint-ref-repaired',
      `checkpoint ${hash.slice(0, 7)} lost its history; its files are kept as ${salvaged.slice(0, 7)} (${ref})`,
    );
  }

  /** Whether every object of `hash` is present: its own tree only, or (history) its ancestors' too. */
  private async closureIntact(hash: string, history: boolean): Promise<boolean> {
    const args = ['rev-list', '--objects', '--missing=print', ...(history ? [] : ['--no-walk']), hash];
    try {
      const out = await this.git(args);
      return !out.split('\n').some((l) => l.startsWith('?'));
    } catch {
      return false;
    }
  }

  /** A damaged index, or one that names lost blobs, is rebuilt from the newest intact checkpoint. */
  private async fixIndex(): Promise<void> {
    const indexFile = path.join(this.gitDir, 'index');
    const bytes = await fs.readFile(indexFile).catch(() => null);
    if (!bytes) return;
    let bad = !indexChecksumOk(bytes);
    if (!bad) {
      const listing = await this.git(['ls-files', '-s', '-z']).catch(() => null);
      if (listing === null) bad = true;
      else {
        const ids = listing
          .split('\0')
          .map((e) => /^\d{6} ([0-9a-f]{40}) /.exec(e)?.[1])
          .filter((x): x is string => !!x && x !== '0'.repeat(40));
        if (ids.length > 0) {
          const types = await execGit(['--git-dir', this.gitDir, 'cat-file', '--batch-check=%(objecttype)'], {
            stdin: ids.join('\n') + '\n',
            env: this.env,
          });
          bad = types.stdout
            .toString()
            .split('\n')
            .some((l) => l.endsWith('missing'));
        }
      }
    }
    if (!bad) return;
    await this.moveAside(indexFile);
    const base = await this.newestIntactCheckpoint();
    if (base) {
      await this.git(['read-tree', base]);
      this.report('repository-repaired', `rebuilt the shadow index from checkpoint ${base.slice(0, 7)}`);
    } else {
      this.report('repository-repaired', 'discarded a damaged shadow index (the next checkpoint re-reads every file)');
    }
  }

  private async newestIntactCheckpoint(): Promise<string | null> {
    const refs = await this.listRefs();
    let best: { hash: string; time: number } | null = null;
    for (const [ref, hash] of refs) {
      if (!ref.startsWith(SESSION_PREFIX)) continue;
      if (!(await this.closureIntact(hash, false))) continue;
      const time = Number((await this.git(['log', '-1', '--format=%ct', hash]).catch(() => '0')).trim());
      if (!best || time > best.time) best = { hash, time };
    }
    return best?.hash ?? null;
  }

  private async writeUnavailable(): Promise<void> {
    if (this.unavailable.size === 0 && this.salvaged.size === 0) return;
    const wsDir = path.dirname(this.gitDir);
    const old = await readUnavailable(wsDir);
    const all = [...new Set([...old, ...this.unavailable])].sort();
    const salvaged = { ...(await readSalvaged(wsDir)), ...Object.fromEntries(this.salvaged) };
    await writeAtomic(path.join(wsDir, UNAVAILABLE_FILE), JSON.stringify({ hashes: all, salvaged }, null, 2) + '\n');
  }

  private async allCheckpoints(): Promise<string[]> {
    const out = new Set<string>();
    for (const s of this.ctx.sessions ?? []) for (const h of s.hashes) out.add(h);
    for (const [, hash] of await this.listRefs()) out.add(hash);
    return [...out].filter((h) => HEX40.test(h));
  }

  private async listRefs(): Promise<Map<string, string>> {
    const out = await this.git(['for-each-ref', '--format=%(refname) %(objectname)', 'refs/']).catch(() => '');
    const refs = new Map<string, string>();
    for (const line of out.split('\n')) {
      const [ref, hash] = line.split(' ');
      if (ref && hash && HEX40.test(hash)) refs.set(ref, hash);
    }
    return refs;
  }

  private async git(args: string[]): Promise<string> {
    return (await execGit(['--git-dir', this.gitDir, ...args], { env: this.env })).stdout.toString('utf8');
  }

  /** Move a damaged file into the quarantine folder, keeping its path (never delete: lose nothing). */
  private async moveAside(file: string): Promise<void> {
    const dest = path.join(
      this.quarantine,
      `${this.quarantined++}-${path.relative(this.gitDir, file).replace(/[\\/]/g, '_')}`,
    );
    await mkdirPrivate(this.quarantine);
    await fs.rename(file, dest).catch(async () => {
      await fs.copyFile(file, dest).catch(() => undefined);
      await fs.rm(file, { force: true });
    });
  }

  private async copyAside(file: string): Promise<void> {
    await mkdirPrivate(this.quarantine);
    await fs.copyFile(file, path.join(this.quarantine, `${this.quarantined++}-${path.basename(file)}`));
  }
}

/**
 * Checkpoints whose history broke but whose files were kept: old hash → salvaged commit (same tree). Restores
 * and diffs of such a checkpoint use the salvaged commit, which outlives the old one at the next gc.
 */
export async function readSalvaged(wsDir: string): Promise<Record<string, string>> {
  const text = await readText(path.join(wsDir, UNAVAILABLE_FILE));
  if (text === null) return {};
  try {
    const j = JSON.parse(text) as { salvaged?: unknown };
    if (!j.salvaged || typeof j.salvaged !== 'object') return {};
    return Object.fromEntries(
      Object.entries(j.salvaged as Record<string, unknown>).filter(
        (e): e is [string, string] => HEX40.test(e[0]) && typeof e[1] === 'string' && HEX40.test(e[1]),
      ),
    );
  } catch {
    return {};
  }
}

/** Hashes recorded as unavailable by earlier repairs (the coordinator marks their messages). */
export async function readUnavailable(wsDir: string): Promise<string[]> {
  const text = await readText(path.join(wsDir, UNAVAILABLE_FILE));
  if (text === null) return [];
  try {
    const j = JSON.parse(text) as { hashes?: unknown };
    return Array.isArray(j.hashes) ? j.hashes.filter((h): h is string => typeof h === 'string' && HEX40.test(h)) : [];
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------------------

function validHead(text: string): boolean {
  return /^ref: refs\/\S+\s*$/.test(text) || HEX40.test(text.trim());
}

function validRefContent(text: string): boolean {
  return HEX40.test(text.trim()) || /^ref: refs\/\S+\s*$/.test(text);
}

/** Line numbers of packed-refs lines that are neither the header, "<hash> <ref>" nor "^<hash>". */
function badPackedLines(text: string): number[] {
  const bad: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (line === '' || line.startsWith('# pack-refs')) return;
    if (/^[0-9a-f]{40} refs\/\S+$/.test(line) || /^\^[0-9a-f]{40}$/.test(line)) return;
    bad.push(i);
  });
  return bad;
}

/** null: the file is gone (a concurrent gc packed it), which is no damage. */
async function looseObjectOk(file: string, id: string): Promise<boolean | null> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? null : false;
  }
  try {
    const raw = inflateSync(bytes);
    const nul = raw.indexOf(0);
    if (nul < 0) return false;
    const header = raw.subarray(0, nul).toString('latin1');
    const m = /^(blob|tree|commit|tag) (\d+)$/.exec(header);
    if (!m || Number(m[2]) !== raw.length - nul - 1) return false;
    return createHash('sha1').update(raw).digest('hex') === id;
  } catch {
    return false;
  }
}

const blobId = (bytes: Buffer): string => objectId('blob', bytes);

async function looseObjectFiles(gitDir: string): Promise<string[]> {
  const base = path.join(gitDir, 'objects');
  const out: string[] = [];
  const dirs = await fs.readdir(base).catch(() => [] as string[]);
  for (const d of dirs) {
    if (!/^[0-9a-f]{2}$/.test(d)) continue;
    for (const f of await fs.readdir(path.join(base, d)).catch(() => [] as string[])) {
      if (/^[0-9a-f]{38}$/.test(f)) out.push(path.join(base, d, f));
    }
  }
  return out;
}

/** Every loose ref file under refs/ with its text. */
async function looseRefs(gitDir: string): Promise<[string, string][]> {
  const out: [string, string][] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile() && !e.name.endsWith('.lock')) out.push([full, (await readText(full)) ?? '']);
    }
  };
  await walk(path.join(gitDir, 'refs'));
  return out;
}

async function readText(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return null;
  }
}

async function isDir(p: string): Promise<boolean> {
  return (await fs.stat(p).catch(() => null))?.isDirectory() === true;
}

async function writeAtomic(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.repair`;
  await writeFilePrivate(tmp, content);
  await fs.rename(tmp, file);
}

function rel(gitDir: string, file: string): string {
  return path.relative(gitDir, file);
}

function isInside(root: string, p: string): boolean {
  const r = path.relative(root, p);
  return r !== '' && !r.startsWith('..') && !path.isAbsolute(r) && !r.split(path.sep).includes('.git');
}

/**
 * `retrace import cline TASK_DIR [--storage DIR]`: a Cline task (`ui_messages.json`, `task_metadata.json`)
 * becomes a Retrace session whose checkpoints are Cline's own commits. They are copied read-only from Cline's
 * shadow repository (`<storage>/checkpoints/<cwdHash>/.git`) into ours with `git fetch`, each under
 * `refs/retrace/imports/cline/<taskId>/<hash>` so it stays reachable (I5), with its hash unchanged. Where the
 * repository (or a commit) is missing, the messages still come in, marked `checkpointUnavailable`.
 *
 * When none of Cline's commits can be had (its repository is gone, or the task was exported without it),
 * the steps are rebuilt from the edits `ui_messages.json` records (reconstruct.ts): one checkpoint per
 * applied edit, plus one at each prompt, built like the Claude Code importer's (stepTrees.ts); each edit
 * that cannot be rebuilt is listed in `reconstructed.missing` with its reason.
 */
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { MessageMeta } from '../../../shared/model';
import { execGit } from '../../engine/git/exec';
import { gitEnv } from '../../engine/git/env';
import { toRetraceError } from '../../engine/git/errors';
import { shadowConfig } from '../../engine/git/runner';
import { isValidSessionId } from '../../engine/sessions/ids';
import { resolveWorkspace } from '../../engine/workspace';
import { WorkspaceEngine } from '../../engine/workspaceEngine';
import {
  alreadyImported,
  removeSession,
  writeImportedSession,
  type ImportMessage,
  type ImportOutcome,
} from '../importSession';
import { StepTrees, type FileState } from '../stepTrees';
import { findClineEdits, type ClineEditScan } from './edits';
import { reconstructClineEdits, type ClineReconstruction } from './reconstruct';
import { clineCwdHash, parseClineMessages } from './uiMessages';

export interface ClineImportOptions {
  taskDir: string;
  /** Cline's globalStorage folder; default: the task folder's grandparent. */
  storage?: string;
  /** The workspace; default: what the task metadata / history / shadow repository say. */
  cwd?: string;
  dataHome: string;
  replace?: boolean;
}

export interface ClineImportResult extends ImportOutcome {
  /** Cline's shadow repository the commits came from, or null when none was found. */
  repository: string | null;
  unavailable: number;
  /** Files rebuilt from ui_messages.json, and each applied edit that could not be (by its message `ts`). */
  reconstructed: { files: string[]; missing: { path: string; reason: string; sourceId: string }[] };
  /**
   * The task's file edits: `applied` ones are covered by Cline's own checkpoints (source `cline-checkpoints`)
   * or rebuilt / reported missing (source `ui_messages`); `notApplied` ones (rejected, never approved) change
   * nothing.
   */
  edits: {
    source: 'cline-checkpoints' | 'ui_messages';
    applied: number;
    rebuilt: number;
    missing: number;
    notApplied: { path: string; reason: string; sourceId: string }[];
  };
}

export function importRef(taskId: string, hash: string): string {
  return `refs/retrace/imports/cline/${taskId}/${hash}`;
}

export async function importCline(opts: ClineImportOptions): Promise<ClineImportResult> {
  const taskDir = opts.taskDir.replace(/[\\/]+$/, '');
  if (!existsSync(taskDir) || !statSync(taskDir).isDirectory())
    throw new RetraceError('E_IMPORT', `no such Cline task folder: ${taskDir}`);
  const taskId = basename(taskDir);
  const raw = readJson(join(taskDir, 'ui_messages.json'));
  if (raw === undefined)
    throw new RetraceError('E_IMPORT', `${taskDir} has no readable ui_messages.json (is it a Cline task folder?)`);
  const conv = parseClineMessages(raw);
  const scan = findClineEdits(conv.list);
  const warnings = [...conv.warnings];
  const storage = opts.storage ?? dirname(dirname(taskDir));
  const metadata = obj(readJson(join(taskDir, 'task_metadata.json')));
  const history = historyItem(storage, taskId);

  const declaredCwd =
    opts.cwd ??
    firstString(metadata, ['cwd', 'cwdOnTaskInitialization', 'workspaceRoot']) ??
    firstString(history, ['cwdOnTaskInitialization', 'shadowGitConfigWorkTree', 'cwd']);
  const repo = await findShadowRepo(storage, taskDir, taskId, declaredCwd);
  const cwd = declaredCwd ?? repo?.worktree;
  if (!cwd) throw new RetraceError('E_IMPORT', `cannot tell the workspace of Cline task ${taskId}; give it with --cwd`);
  if (!repo)
    warnings.push(
      `Cline's shadow repository for ${cwd} was not found under ${join(storage, 'checkpoints')}; checkpoints are marked unavailable`,
    );

  const session = isValidSessionId(taskId) ? taskId : `cline-${taskId.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 100)}`;
  const title = firstString(history, ['task']) ?? firstString(metadata, ['title', 'task']) ?? conv.task ?? undefined;
  const ws = await resolveWorkspace(cwd, { dataHome: opts.dataHome });
  const engine = new WorkspaceEngine(ws, { actor: 'retrace import' });

  const wanted = [...new Set(conv.messages.map((m) => m.checkpoint).filter((h): h is string => h !== null))];
  const present = repo ? await existingCommits(repo.gitDir, wanted) : new Set<string>();
  const missingInRepo = repo ? wanted.filter((h) => !present.has(h)) : [];
  if (missingInRepo.length > 0)
    warnings.push(`${missingInRepo.length} checkpoint(s) are not in Cline's repository any more; marked unavailable`);

  return engine.write(async () => {
    if (engine.sessions.exists(session)) {
      if (!opts.replace) {
        return {
          ...(await alreadyImported(engine, session)),
          repository: repo?.gitDir ?? null,
          unavailable: 0,
          edits: editCounts(scan, null),
        };
      }
      await removeSession(engine, session);
    }
    const shadow = await engine.shadow();
    if (repo && present.size > 0) await fetchCommits(shadow.gitDir, ws.dir, repo.gitDir, taskId, [...present]);
    // Cline's own commits are the truth when there are any; otherwise rebuild the steps from its messages.
    const rec =
      present.size === 0
        ? reconstructClineEdits(scan.applied, { cwd: ws.root, readWorkspace: (p) => readWorkspaceFile(ws.root, p) })
        : null;
    if (rec) warnings.push(...rec.warnings, ...missingWarnings(rec));
    const stepAt = new Map(rec?.steps.map((s) => [s.edit.index, s]));
    const trees = rec ? await StepTrees.open(shadow, rec.touched) : null;
    let unavailable = 0;
    const messages: ImportMessage[] = [];
    try {
      let states: Map<string, FileState> = rec?.initial ?? new Map();
      for (const m of conv.messages) {
        const meta: MessageMeta = { ...m.meta };
        const out: ImportMessage = { role: m.role, text: m.text, ts: m.ts, meta };
        if (m.checkpoint) {
          if (present.has(m.checkpoint)) out.checkpoint = { hash: m.checkpoint };
          else {
            meta.checkpointUnavailable = true;
            unavailable++;
          }
        }
        const step = stepAt.get(m.sourceIndex);
        if (step) {
          states = step.states;
          meta.reconstructed = { files: step.rebuilt, missing: step.missing.map((x) => x.path) };
        }
        // One checkpoint per applied edit, and one at each prompt (the state the person saw when typing it).
        if (trees && (step || m.role === 'user')) out.checkpoint = { tree: await trees.tree(states) };
        messages.push(out);
      }
      await trees?.flush();
    } finally {
      trees?.dispose();
    }
    const written = await writeImportedSession(engine, {
      id: session,
      ...(title ? { title: firstLineOf(title) } : {}),
      source: 'cline',
      messages,
      importer: 'cline',
      origin: {
        kind: 'cline',
        taskId,
        cwd: ws.root,
        ...(repo ? { transcript: join(taskDir, 'ui_messages.json') } : {}),
      },
      archiveSource: join(taskDir, 'ui_messages.json'),
    });
    return {
      ...written,
      workspace: ws.root,
      skipped: false,
      repository: repo?.gitDir ?? null,
      unavailable,
      reconstructed: reconstructedSummary(rec),
      edits: editCounts(scan, rec),
      warnings,
    };
  });
}

/** One line per edit that could not be rebuilt, so the text output says what the JSON lists. */
function missingWarnings(rec: ClineReconstruction): string[] {
  return rec.steps.flatMap((s) => s.missing.map((m) => `edit of ${m.path} not rebuilt: ${m.reason}`));
}

function reconstructedSummary(rec: ClineReconstruction | null): ClineImportResult['reconstructed'] {
  if (!rec) return { files: [], missing: [] };
  const files = new Set(rec.steps.flatMap((s) => s.rebuilt));
  const missing = rec.steps.flatMap((s) => s.missing.map((x) => ({ ...x, sourceId: String(s.edit.ts) })));
  return { files: [...files].sort(), missing };
}

function editCounts(scan: ClineEditScan, rec: ClineReconstruction | null): ClineImportResult['edits'] {
  return {
    source: rec ? 'ui_messages' : 'cline-checkpoints',
    applied: scan.applied.length,
    rebuilt: rec ? rec.steps.filter((s) => s.rebuilt.length > 0).length : 0,
    missing: rec ? rec.steps.filter((s) => s.missing.length > 0).length : 0,
    notApplied: scan.notApplied.map((n) => ({ path: n.edit.path, reason: n.reason, sourceId: String(n.edit.ts) })),
  };
}

/** A workspace file now: its text, null when it is not there, undefined when it cannot be read. */
function readWorkspaceFile(root: string, relPath: string): string | null | undefined {
  try {
    return readFileSync(join(root, relPath), 'utf8');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

interface FoundRepo {
  gitDir: string;
  worktree: string | undefined;
}

/**
 * Cline's shadow repository for a task: `checkpoints/<cwdHash>/.git` (the hash of the cwd as Cline saw it,
 * and of its real path), the older per-task `tasks/<id>/checkpoints/.git`, else any `checkpoints/*` repository
 * whose work tree is that cwd or whose history names the task.
 */
async function findShadowRepo(
  storage: string,
  taskDir: string,
  taskId: string,
  cwd: string | undefined,
): Promise<FoundRepo | null> {
  const root = join(storage, 'checkpoints');
  const candidates: string[] = [];
  if (cwd) {
    const forms = new Set([cwd, cwd.replace(/[\\/]+$/, '')]);
    try {
      forms.add(realpathSync(cwd));
    } catch {
      // the workspace may be gone; the import then fails later with a clear error
    }
    for (const f of forms) candidates.push(join(root, clineCwdHash(f), '.git'), join(root, signedCwdHash(f), '.git'));
  }
  candidates.push(join(taskDir, 'checkpoints', '.git'));
  for (const c of candidates) if (isGitDir(c)) return { gitDir: c, worktree: await configValue(c, 'core.worktree') };
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    return null;
  }
  for (const n of names) {
    const gitDir = join(root, n, '.git');
    if (!isGitDir(gitDir)) continue;
    const worktree = await configValue(gitDir, 'core.worktree');
    if (cwd && worktree && samePath(worktree, cwd)) return { gitDir, worktree };
    if (!cwd && (await namesTask(gitDir, taskId))) return { gitDir, worktree };
  }
  return null;
}

/** The same hash as Cline's `(hash << 5) - hash + c` in signed 32 bits, made positive (some builds write that). */
function signedCwdHash(cwd: string): string {
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = ((h << 5) - h + cwd.charCodeAt(i)) | 0;
  return String(Math.abs(h));
}

function isGitDir(p: string): boolean {
  return existsSync(join(p, 'HEAD')) && existsSync(join(p, 'objects'));
}

function samePath(a: string, b: string): boolean {
  const norm = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p.replace(/[\\/]+$/, '');
    }
  };
  return norm(a) === norm(b);
}

/** Read-only git against Cline's repository: its config and ours never apply, nothing is written there. */
async function readGit(gitDir: string, args: string[], stdin?: string, okExitCodes: number[] = [0]): Promise<Buffer> {
  const r = await execGit([`--git-dir=${gitDir}`, ...args], {
    env: gitEnv(),
    cwd: gitDir,
    okExitCodes,
    ...(stdin !== undefined ? { stdin } : {}),
  });
  return r.stdout;
}

async function configValue(gitDir: string, key: string): Promise<string | undefined> {
  try {
    const out = await readGit(gitDir, ['config', '--file', join(gitDir, 'config'), '--get', key], undefined, [0, 1]);
    const v = out.toString('utf8').trim();
    return v === '' ? undefined : v;
  } catch {
    return undefined;
  }
}

async function namesTask(gitDir: string, taskId: string): Promise<boolean> {
  try {
    const out = await readGit(gitDir, [
      'log',
      '--all',
      '--format=%s',
      '--fixed-strings',
      `--grep=-${taskId}`,
      '-n',
      '1',
    ]);
    return out.toString('utf8').trim() !== '';
  } catch {
    return false;
  }
}

async function existingCommits(gitDir: string, hashes: string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const out = await readGit(gitDir, ['cat-file', '--batch-check'], hashes.join('\n') + '\n');
  const found = new Set<string>();
  for (const line of out.toString('utf8').split('\n')) {
    const [hash, type] = line.split(' ');
    if (hash && type === 'commit') found.add(hash);
  }
  return found;
}

/**
 * Fetch the commits by hash into our shadow repository. Cline's repository does not advertise every commit
 * (a restore there moves its branch back), so upload-pack is told to accept any reachable-or-not object id.
 */
async function fetchCommits(
  shadowGitDir: string,
  wsDir: string,
  from: string,
  taskId: string,
  hashes: string[],
): Promise<void> {
  const config = shadowConfig(join(wsDir, 'empty')).flatMap((c) => ['-c', c]);
  for (let i = 0; i < hashes.length; i += 100) {
    const slice = hashes.slice(i, i + 100);
    try {
      await execGit(
        [
          `--git-dir=${shadowGitDir}`,
          ...config,
          '-c',
          'uploadpack.allowAnySHA1InWant=true',
          'fetch',
          '--quiet',
          '--no-tags',
          '--no-write-fetch-head',
          '--no-auto-gc',
          '--no-recurse-submodules',
          from,
          ...slice.map((h) => `+${h}:${importRef(taskId, h)}`),
        ],
        { env: gitEnv(), cwd: wsDir },
      );
    } catch (e) {
      throw toRetraceError(e);
    }
  }
}

function historyItem(storage: string, taskId: string): Record<string, unknown> | undefined {
  const list = readJson(join(storage, 'state', 'taskHistory.json'));
  if (!Array.isArray(list)) return undefined;
  return list.map(obj).find((h) => h?.id === taskId);
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function firstString(o: Record<string, unknown> | undefined, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = o?.[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return undefined;
}

function firstLineOf(s: string): string {
  const l = s.trim().split('\n')[0]!.trim();
  return l.length > 80 ? `${l.slice(0, 79)}…` : l;
}

/**
 * `retrace move FROM [TO]`, and the app's "Bring the history of …" (service.moveHistory, listed by
 * movedHistories): a project folder that was moved or renamed takes its history along. A workspace's
 * data folder is named after the folder's path (workspace.ts), so at the new path the sessions, checkpoints and
 * restores seemed gone; they are still in the data folder of the path that is gone, and this gives that data
 * folder the new path's name. Nothing in it names the project's own path except workspace.json (the shadow
 * repository is always run with an explicit work tree, and every other file holds paths relative to the root).
 *
 * FROM must be gone (else its history stays with it: open it there), TO must have no sessions of its own (a
 * data folder that opening it made in passing is replaced). FROM's writer lock is held throughout, so no writer
 * that still had the old folder open is cut off halfway; TO's while its data folder is looked at and set aside.
 */
import { existsSync, promises as fs, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../shared/errors';
import type { MovedHistory, MoveResult } from '../../shared/model';
import { testHook } from '../engine/faults';
import { acquireLock, lockPath, lockToken } from '../engine/lock';
import { pidAlive } from '../engine/pidAlive';
import { writeFilePrivate } from '../engine/privateFs';
import { goneWorkspaceDir, resolveWorkspace, type WorkspaceRef } from '../engine/workspace';

export async function moveWorkspace(
  from: string,
  to: string,
  opts: { cwd: string; dataHome: string },
): Promise<MoveResult> {
  const gone = path.resolve(opts.cwd, from);
  if (exists(gone))
    throw new RetraceError(
      'E_INVALID_INPUT',
      `${gone} still exists: move takes along the history of a folder that was moved or renamed (its history stays with it)`,
    );
  const oldDir = goneWorkspaceDir(gone, opts.dataHome);
  if (!oldDir) throw new RetraceError('E_NOT_FOUND', `Retrace has no history of ${gone}`);
  const target = await resolveWorkspace(to, { cwd: opts.cwd, dataHome: opts.dataHome });
  const was = readRoot(oldDir) ?? gone;
  const old: WorkspaceRef = { ...target, root: was, id: path.basename(oldDir), dir: oldDir, name: path.basename(was) };

  const lock = await acquireLock(old);
  let moved = false;
  const asides: string[] = [];
  try {
    for (let attempt = 1; !moved; attempt++) {
      asides.push(await setAside(target, attempt));
      await testHook('move:after-aside', target.dir);
      try {
        await fs.rename(oldDir, target.dir);
        moved = true;
      } catch (e) {
        // Made again meanwhile by someone opening the folder (a window that follows it): set that one aside too.
        const code = (e as NodeJS.ErrnoException).code;
        if ((code === 'ENOTEMPTY' || code === 'EEXIST') && attempt < 3) continue;
        await fs.rename(asides[0]!, target.dir).catch(() => {});
        for (const aside of asides.slice(1)) await fs.rm(aside, { recursive: true, force: true });
        throw new RetraceError('E_DATA_DIR', `cannot move ${oldDir} to ${target.dir}: ${(e as Error).message}`);
      }
    }
    for (const aside of asides) await fs.rm(aside, { recursive: true, force: true });
    await dropLeftAsides(target.dir);
    const json = { root: target.root, id: target.id, movedFrom: was, movedAt: new Date().toISOString() };
    await writeFilePrivate(path.join(target.dir, 'workspace.json'), JSON.stringify(json, null, 2) + '\n');
    return { from: was, to: target.root, sessions: sessionCount(target.dir) };
  } finally {
    await lock.release();
    // Our lock file went along with the folder: removed there (only while it is still ours).
    if (moved && lockToken(lockPath(target)) === lock.token) await fs.rm(lockPath(target), { force: true });
  }
}

/**
 * TO's data folder, made in passing when it was opened (workspace.json, perhaps an empty shadow repository),
 * moved aside under its writer lock, which goes with it: a session begun there meanwhile is refused instead.
 */
async function setAside(target: WorkspaceRef, attempt: number): Promise<string> {
  const lock = await acquireLock(target);
  const aside = `${target.dir}.replaced-${process.pid}-${attempt}`;
  try {
    const own = sessionCount(target.dir);
    if (own > 0)
      throw new RetraceError(
        'E_INVALID_INPUT',
        `${target.root} has ${own} Retrace session(s) of its own: move needs a folder with none (forget them first)`,
      );
    // Restores of forgotten sessions: their safety checkpoints still hold files of the folder.
    if (hasRestores(target.dir))
      throw new RetraceError(
        'E_INVALID_INPUT',
        `${target.root} has Retrace restores of its own (their safety checkpoints are kept): move needs a folder with none`,
      );
    await fs.rename(target.dir, aside);
    return aside;
  } finally {
    await lock.release(); // its file is in the folder set aside when that worked: nothing to remove then
  }
}

/**
 * Folders an earlier move of this same path set aside and could not remove, because it was killed between its two
 * renames: removed once their mover is gone. Each held no session and no restore when it was set aside, under
 * the folder's lock (setAside), so nothing of value is in it; a live mover's are its own to remove.
 */
async function dropLeftAsides(dir: string): Promise<void> {
  const parent = path.dirname(dir);
  const prefix = `${path.basename(dir)}.replaced-`;
  let names: string[];
  try {
    names = readdirSync(parent).filter((n) => n.startsWith(prefix));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^(\d+)-\d+$/.exec(name.slice(prefix.length))?.[1]; // setAside's `<pid>-<attempt>`
    if (pid === undefined || pidAlive(Number(pid))) continue;
    await fs.rm(path.join(parent, name), { recursive: true, force: true });
  }
}

/** How many folders movedHistories lists at most. */
const MOVED_MAX = 5;

/**
 * Histories of folders that are gone, for a folder with none of its own to take one along: those of the same
 * name first (a folder moved elsewhere), then the most sessions. Read from each data folder's workspace.json.
 */
export function movedHistories(ws: WorkspaceRef): MovedHistory[] {
  const workspaces = path.join(ws.dataHome, 'workspaces');
  let names: string[];
  try {
    names = readdirSync(workspaces);
  } catch {
    return [];
  }
  const found: MovedHistory[] = [];
  for (const name of names) {
    const dir = path.join(workspaces, name);
    const root = readRoot(dir);
    if (!root || root === ws.root || exists(root)) continue;
    const sessions = sessionCount(dir);
    if (sessions > 0) found.push({ root, sessions });
  }
  const sameName = (h: MovedHistory): number => (path.basename(h.root) === ws.name ? 0 : 1);
  return found.sort((a, b) => sameName(a) - sameName(b) || b.sessions - a.sessions).slice(0, MOVED_MAX);
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function readRoot(dir: string): string | null {
  try {
    const root = (JSON.parse(readFileSync(path.join(dir, 'workspace.json'), 'utf8')) as { root?: unknown }).root;
    return typeof root === 'string' ? root : null;
  } catch {
    return null;
  }
}

function hasRestores(dir: string): boolean {
  try {
    return statSync(path.join(dir, 'ledger.jsonl')).size > 0;
  } catch {
    return false;
  }
}

function sessionCount(dir: string): number {
  const sessions = path.join(dir, 'sessions');
  if (!existsSync(sessions)) return 0;
  return readdirSync(sessions).filter((n) => n.endsWith('.jsonl')).length;
}

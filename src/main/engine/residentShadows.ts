/**
 * A long-lived host that opens many short-lived engines for the same folders (the hook server: one
 * WorkspaceEngine per hook call) keeps each folder's ShadowRepo open across calls, as the app's service keeps
 * its engines: the repository is checked and opened once, and its resident git processes (a cat-file
 * --batch, a diff-tree --stdin) serve every later call instead of starting anew (and lingering) per call.
 * A repository whose folder was removed meanwhile (`retrace forget`) is opened afresh.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ShadowRepo } from './shadow';
import type { WorkspaceRef } from './workspace';

let kept: Map<string, Promise<ShadowRepo>> | null = null;

/** Turned on by the hook server for its lifetime. */
export function keepShadowsOpen(): void {
  kept ??= new Map();
}

/** The workspace's shadow repository: the kept one when this host keeps them, else a new one. */
export function openShadow(ws: WorkspaceRef): Promise<ShadowRepo> {
  const open = (): Promise<ShadowRepo> => import('./shadow').then(({ ShadowRepo }) => ShadowRepo.open(ws));
  if (!kept) return open();
  const key = `${ws.dir}\0${ws.root}`;
  const known = kept.get(key);

  if (known && existsSync(path.join(ws.dir, 'shadow.git', 'HEAD'))) return known;
  if (known) void known.then((repo) => repo.close()).catch(() => undefined);
  const opening = open();
  kept.set(key, opening);
  opening.catch(() => {
    if (kept?.get(key) === opening) kept.delete(key); // a failed open is retried by the next call
  });
  return opening;
}

/**
 * After a failed write: the next call opens the repository afresh, with the checks of an open (a half-written
 * ref fixed first) and a doctor that may repair again (each repairs once, against loops).
 */
export function dropKeptShadow(ws: WorkspaceRef): void {
  const key = `${ws.dir}\0${ws.root}`;
  const known = kept?.get(key);
  if (!known) return;
  kept!.delete(key);
  void known.then((repo) => repo.close()).catch(() => undefined);
}

/** Whether `repo` belongs to this host's kept repositories (an engine then leaves closing it to the host). */
export function isKept(): boolean {
  return kept !== null;
}

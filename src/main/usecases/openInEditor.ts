/**
 * "Open in editor": hand one workspace file to the desktop's default application for it. Only a host with a
 * desktop (Electron's shell.openPath) can; elsewhere E_UNSUPPORTED. The default application of a program is the
 * program itself, so files the desktop would run rather than show are refused (a page must never start code).
 */
import { lstat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { RetraceError } from '../../shared/errors';
import type { WorkspaceEngine } from '../engine/workspaceEngine';

/** Opens an absolute path; resolves to '' on success or the desktop's error message (shell.openPath's answer). */
export type OpenPath = (absolutePath: string) => Promise<string>;

/** Extensions a desktop runs when asked to open them (Windows runs .js with its script host). */
const RUNS_ON_OPEN = new Set(
  (
    '.exe .com .bat .cmd .ps1 .psm1 .vbs .vbe .js .jse .wsf .wsh .hta .msi .msp .scr .cpl .lnk .url .reg .jar ' +
    '.app .command .desktop .appimage .run .sh .bash .zsh .csh .fish .pif .scf .inf .gadget .application'
  ).split(' '),
);

/** Whether the desktop would run this file instead of showing it. */
export function runsOnOpen(path: string, mode: number, platform: NodeJS.Platform = process.platform): boolean {
  const ext = extname(path).toLowerCase();
  if (platform === 'win32') return RUNS_ON_OPEN.has(ext);
  // POSIX desktops run executables (and .desktop launchers); .js is only text there.
  return (mode & 0o111) !== 0 || (ext !== '.js' && RUNS_ON_OPEN.has(ext));
}

export async function openInEditor(
  engine: WorkspaceEngine,
  path: string,
  openPath: OpenPath | undefined,
): Promise<void> {
  if (!openPath) throw new RetraceError('E_UNSUPPORTED', 'this host cannot open files in an editor');
  const rel = await engine.checkPath(path);
  const full = join(engine.ws.root, rel);
  const st = await lstat(full).catch(() => null);
  if (!st?.isFile()) throw new RetraceError('E_INVALID_INPUT', `${rel} is not a file in the folder now`);
  if (runsOnOpen(rel, st.mode))
    throw new RetraceError('E_UNSUPPORTED', `${rel} would run, not open: open it from your editor instead`);
  const error = await openPath(full);
  if (error) throw new RetraceError('E_UNSUPPORTED', `could not open ${rel}: ${error}`);
}

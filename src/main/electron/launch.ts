/**
 * The folders a launch asks to open. The first instance reads its own command line. A second instance (the
 * user ran `retrace DIR` while the app was open) hands its folders to the first as the `additionalData` of
 * requestSingleInstanceLock: Electron documents that the 'second-instance' argv may be reordered and carry
 * Chromium's own switches, and that additionalData is the way to pass arguments exactly.
 */
import { isAbsolute, resolve } from 'node:path';

/** What a second instance sends the first one. */
export interface LaunchRequest {
  folders: string[];
}

/** Folder arguments as typed (`retrace DIR` runs `electron out/main/index.js DIR`; a packaged app has no script). */
export function foldersFromArgv(argv: readonly string[], packaged: boolean): string[] {
  return argv.slice(packaged ? 1 : 2).filter((a) => !a.startsWith('-') && a !== '.');
}

/** This launch's folders, made absolute against its working directory (the first instance has another). */
export function launchRequest(argv: readonly string[], cwd: string, packaged: boolean): LaunchRequest {
  return { folders: foldersFromArgv(argv, packaged).map((f) => (isAbsolute(f) ? f : resolve(cwd, f))) };
}

/** The folders in a second instance's additionalData; anything malformed yields none. */
export function foldersFromLaunchRequest(data: unknown): string[] {
  const folders = (data as Partial<LaunchRequest> | null)?.folders;
  if (!Array.isArray(folders)) return [];
  return folders.filter((f): f is string => typeof f === 'string' && isAbsolute(f));
}

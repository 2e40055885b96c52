/**
 * The app's choices for one folder ("Always import", "Record changes"), kept in the folder's workspace data
 * folder as `app-settings.json`, so that every window and a `retrace serve` on the same data home agree, and
 * the choice follows the folder (not the window) across restarts. Written whole to a private temporary file
 * and renamed into place: a reader never sees half of it.
 */
import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { RetraceError } from '../../shared/errors';
import type { FolderSettings } from '../../shared/model';
import { writeFilePrivate } from '../engine/privateFs';

export interface StoredFolderSettings extends FolderSettings {
  /** The `watch` session "Record changes" continues each time it is switched on (one per folder, not per run). */
  watchSession?: string;
}

/** Its name in the workspace data folder (the service follows it there: another process may change it). */
export const FOLDER_SETTINGS_FILE = 'app-settings.json';
const FILE = FOLDER_SETTINGS_FILE;
const DEFAULTS: StoredFolderSettings = { alwaysImport: false, recordChanges: false };

export async function readFolderSettings(workspaceDir: string): Promise<StoredFolderSettings> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(workspaceDir, FILE), 'utf8'));
  } catch {
    return { ...DEFAULTS }; // missing or damaged: the defaults (nothing runs unasked)
  }
  const o = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  return {
    alwaysImport: o.alwaysImport === true,
    recordChanges: o.recordChanges === true,
    ...(typeof o.watchSession === 'string' ? { watchSession: o.watchSession } : {}),
  };
}

export async function writeFolderSettings(
  workspaceDir: string,
  change: Partial<StoredFolderSettings>,
): Promise<StoredFolderSettings> {
  const next = { ...(await readFolderSettings(workspaceDir)), ...change };
  const file = join(workspaceDir, FILE);
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFilePrivate(tmp, JSON.stringify(next, null, 2) + '\n');
    await rename(tmp, file);
  } catch (e) {
    throw new RetraceError(
      'E_DATA_DIR',
      `cannot save the folder's settings in ${workspaceDir}: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
  return next;
}

/** What the renderer sees (the watch session's id stays on this side). */
export function publicSettings(s: StoredFolderSettings): FolderSettings {
  return { alwaysImport: s.alwaysImport, recordChanges: s.recordChanges };
}

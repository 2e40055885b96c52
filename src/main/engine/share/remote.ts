/**
 * Where sessions travel (`retrace push/pull [REMOTE]`) and who is sending them. A REMOTE is any git remote URL:
 * a path (relative to the caller's folder), file://, ssh (user@host:path or ssh://) or https. Without one, the
 * folder's own git `origin`, read from the user's repository (never written).
 */
import os from 'node:os';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { gitEnv } from '../git/env';
import { execGit } from '../git/exec';
import type { RecordedBy } from '../sessions/pulled';

/** A URL git understands as is: scheme://…, or scp-like host:path (a colon before any slash, not a drive letter). */
function isUrl(remote: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(remote) || /^[^/\\]{2,}:/.test(remote);
}

/** The remote to use: the one given (a path made absolute from `base`), else the folder's `origin`. */
export async function resolveRemote(given: string | undefined, base: string, root: string): Promise<string> {
  if (given !== undefined) {
    if (given.trim() === '' || given.startsWith('-'))
      throw new RetraceError('E_USAGE', `not a git remote: ${JSON.stringify(given)}`);
    return isUrl(given) ? given : path.resolve(base, given);
  }
  // Only the user's own repository config, through rev-parse/config (reading, never writing it).
  const r = await execGit(['-C', root, 'config', '--get', 'remote.origin.url'], {
    env: gitEnv(),
    okExitCodes: [0, 1, 128],
  }).catch(() => null);
  const url = r && r.exitCode === 0 ? r.stdout.toString('utf8').trim() : '';
  if (!url)
    throw new RetraceError(
      'E_NO_REMOTE',
      `no REMOTE given and ${root} has no git origin: name one (a path, file://, ssh or https URL)`,
    );
  return isUrl(url) ? url : path.resolve(root, url);
}

/** The pusher: git's user.name/user.email as the user set them (repository, then global config), and the host. */
export async function whoIsPushing(root: string): Promise<RecordedBy> {
  const env = { ...gitEnv() };
  delete env.GIT_CONFIG_GLOBAL; // the user's own ~/.gitconfig: that is where their name lives
  const get = async (key: string): Promise<string | null> => {
    const r = await execGit(['-C', root, 'config', '--get', key], { env, okExitCodes: [0, 1, 128] }).catch(() => null);
    const v = r && r.exitCode === 0 ? r.stdout.toString('utf8').trim() : '';
    return v || null;
  };
  const name = (await get('user.name')) ?? os.userInfo().username;
  return { name, email: await get('user.email'), host: os.hostname() };
}

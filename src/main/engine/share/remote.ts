/**
 * Where sessions travel (`retrace push/pull [REMOTE]`) and who is sending them. A REMOTE is any git remote: the
 * name of one of the folder's repository, or a URL — a path (relative to the caller's folder), file://, ssh
 * (user@host:path or ssh://) or https. Without one, the folder's own git `origin`. The user's repository is
 * only read (never written).
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

/**
 * The remote to use, as `git push REMOTE` would take it: a URL, else a remote of that name in the folder's
 * repository (a user types `retrace push origin`), else a path made absolute from `base`. Without one, the
 * folder's `origin`.
 */
export async function resolveRemote(given: string | undefined, base: string, root: string): Promise<string> {
  if (given !== undefined) {
    if (given.trim() === '' || given.startsWith('-'))
      throw new RetraceError('E_USAGE', `not a git remote: ${JSON.stringify(given)}`);
    if (isUrl(given)) return given; // no remote's name holds a colon
    return (await remoteUrl(root, given)) ?? path.resolve(base, given);
  }
  const origin = await remoteUrl(root, 'origin');
  if (!origin)
    throw new RetraceError(
      'E_NO_REMOTE',
      `no REMOTE given and ${root} has no git origin: name one (a remote, a path, file://, ssh or https URL)`,
    );
  return origin;
}

/** The URL of the folder's git remote `name` (a relative path made absolute), or null: read, never written. */
async function remoteUrl(root: string, name: string): Promise<string | null> {
  if (/[\n\0]/.test(name)) return null; // not a name git config can hold
  const r = await execGit(['-C', root, 'config', '--get', `remote.${name}.url`], {
    env: gitEnv(),
    okExitCodes: [0, 1, 128],
  }).catch(() => null);
  const url = r && r.exitCode === 0 ? r.stdout.toString('utf8').trim() : '';
  if (!url) return null;
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

/**
 * Sharing sessions through git (`retrace push` / `retrace pull`), for the CLI and any later caller alike.
 * Push: the log commits are made under the writer lock, the push itself runs without it (a slow network must
 * not hold up the agent's hooks). Pull: under the lock, since it writes logs and refs.
 */
import type { WorkspaceEngine } from '../engine/workspaceEngine';
import { pullLocked, type PullResult } from '../engine/share/pull';
import { prepareLocked, pushRefs, type PushResult } from '../engine/share/push';
import { resolveRemote } from '../engine/share/remote';
import { toRetraceError } from '../engine/git/errors';

/** git's own failures arrive as GitErrors: give them their codes (E_GIT, E_CORRUPT…), never E_INTERNAL. */
function asRetraceError(e: unknown): never {
  throw toRetraceError(e);
}

export async function push(
  engine: WorkspaceEngine,
  opts: { remote?: string; sessions?: string[]; base: string },
): Promise<PushResult> {
  const remote = await resolveRemote(opts.remote, opts.base, engine.ws.root);
  const sessions = opts.sessions && opts.sessions.length > 0 ? opts.sessions : undefined;
  const refs = await engine.write(() => prepareLocked(engine, sessions)).catch(asRetraceError);
  return pushRefs(engine, remote, refs).catch(asRetraceError);
}

export async function pull(engine: WorkspaceEngine, opts: { remote?: string; base: string }): Promise<PullResult> {
  const remote = await resolveRemote(opts.remote, opts.base, engine.ws.root);
  return engine.write(() => pullLocked(engine, remote)).catch(asRetraceError);
}

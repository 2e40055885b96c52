/**
 * The refs sessions travel as, on any remote and in the shadow repository alike:
 *   refs/retrace/sessions/<id>  the session's checkpoint chain (its tip)
 *   refs/retrace/logs/<id>      a commit whose tree holds the session's log (session.jsonl) and who recorded it
 *                               (recorded-by.json)
 *   refs/retrace/labels/*       labels (annotated tags) of those checkpoints
 * A pull fetches into refs/retrace/incoming/… first and installs from there.
 */
import path from 'node:path';
import type { WorkspaceContext } from '../context';
import { GitRunner } from '../git/runner';

export const logRef = (session: string): string => `refs/retrace/logs/${session}`;
export const LABELS = 'refs/retrace/labels/';
export const INCOMING = 'refs/retrace/incoming/';
export const LOG_FILE = 'session.jsonl';
export const RECORDER_FILE = 'recorded-by.json';

/**
 * Settings for talking to a remote. ssh never prompts (a host key or a password prompt would hang a CLI run, and
 * the app has no terminal): it fails with git's words instead. A GIT_SSH_COMMAND the user set is kept (the
 * shadow's git environment drops every GIT_* variable).
 */
export function remoteConfig(env: NodeJS.ProcessEnv = process.env): string[] {
  const ssh = env.GIT_SSH_COMMAND?.trim() || 'ssh -o BatchMode=yes';
  return ['-c', `core.sshCommand=${ssh}`];
}

/**
 * A runner on the shadow repository for sharing: push, fetch and object plumbing, none of which touches the
 * shadow index, so it need not queue behind the shadow's own runner.
 */
export async function shareRunner(ctx: Pick<WorkspaceContext, 'ws' | 'shadow'>): Promise<GitRunner> {
  const shadow = await ctx.shadow();
  return new GitRunner({ gitDir: shadow.gitDir, workTree: ctx.ws.root, hooksDir: path.join(ctx.ws.dir, 'empty') });
}

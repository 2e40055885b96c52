/**
 * The visible mark of Claude Code HTTP hook calls that may have been lost while no hook server ran
 * (../../cli/hookServer/gap.ts says how the down time is known). Marked at the prompt that follows, in its
 * session's missed list, when all of these hold:
 *  - the hook client found no server and had to start one (RETRACE_HOOK_SERVER_DOWN_SINCE is set);
 *  - `retrace install claude-code` wrote HTTP hooks for this data home (command hooks lose nothing);
 *  - the session's previous turn did not end in a recorded reply: Claude Code makes tool calls only within a
 *    turn, so after a recorded Stop nothing could have been sent. A turn the user interrupted also ends
 *    without a Stop, so such a turn is marked too: the mark says "may".
 * The lost calls' file changes are in the prompt's own checkpoint (it snapshots the whole folder).
 */
import type { SessionEvent } from '../../engine/sessions/events';
import { SERVER_DOWN_ENV } from '../../cli/hookServer/gap';
import { readHttpConfig } from '../../cli/hookServer/httpConfig';
import type { WorkspaceEngine } from '../../engine/workspaceEngine';

export function noteServerGap(
  engine: WorkspaceEngine,
  opts: { session: string; dataHome: string; env: NodeJS.ProcessEnv; previous: SessionEvent | null },
): boolean {
  const since = opts.env[SERVER_DOWN_ENV];
  if (!since || !readHttpConfig(opts.dataHome)?.httpHooks) return false;
  const prev = opts.previous;
  if (prev?.type !== 'message' || prev.role === 'assistant') return false;
  const from = since === 'unknown' ? 'an unknown time (the server was killed)' : since;
  engine.missed.add({
    ts: new Date().toISOString(),
    session: opts.session,
    tool: 'PostToolUse/Stop (HTTP hooks)',
    reason:
      `HOOK_SERVER_DOWN: no hook server ran from ${from} until this prompt; tool calls and the reply in that ` +
      `time may not be recorded: their changes are merged into this prompt's checkpoint`,
  });
  return true;
}

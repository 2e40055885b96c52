/**
 * `retrace hook codex`: one Codex CLI hook call (a JSON payload on stdin) recorded in the session of Codex's
 * own id (source 'codex', the id `retrace import codex` gives the same rollout).
 *
 * What Codex sends — looked up in Codex's documentation page "Hooks" (developers.openai.com/codex/hooks)
 * and the schemas it generates from its source (openai/codex, codex-rs/hooks/schema/generated/
 * *.command.input.schema.json; codex-rs/hooks/src/events/{post_tool_use,stop}.rs):
 * - hooks live in `~/.codex/hooks.json` (CODEX_HOME) or `<repo>/.codex/hooks.json`, shaped like Claude
 *   Code's (event → [{matcher, hooks: [{type: "command", command, timeout (seconds), statusMessage}]}]);
 *   events SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, PreCompact,
 *   PostCompact, SubagentStart/Stop, Stop. Hooks are on by default (`[features] hooks = false` turns them
 *   off); Codex asks the person to review and trust a new command hook before it runs.
 * - every payload: `session_id`, `turn_id`, `transcript_path` (nullable), `cwd`, `hook_event_name`, `model`,
 *   `permission_mode`.
 * - UserPromptSubmit: `prompt`. PostToolUse: `tool_name`, `tool_input`, `tool_response`, `tool_use_id`;
 *   shell tools are named "Bash" with `tool_input.command`, file edits "apply_patch" (matcher aliases
 *   Write/Edit) with the raw patch (`*** Begin Patch …`) in `tool_input.command`. Stop: `last_assistant_message`
 *   (nullable), `stop_hook_active`.
 * - exit 0 with empty stdout or a JSON object continues; Stop's stdout must be JSON when not empty, and the
 *   plain text of some events goes to the model — so the command prints `{}` (every event's output schema
 *   accepts it: all fields default) and nothing else.
 *
 * Used here: session_id, cwd, hook_event_name, prompt, tool_name, tool_input.command (the paths a patch
 * names are the snapshot's hints; a shell command's changes are found by the snapshot itself),
 * tool_use_id, last_assistant_message, transcript_path (kept as the session's origin).
 */
import type { MessageMeta } from '../../../shared/model';
import type { HookRecord } from '../hooks/record';
import { obj, oneLine, str, type Payload } from '../hooks/payload';

/** Tools whose calls change files: the PostToolUse matcher install.ts writes. */
export const CODEX_POST_TOOL_MATCHER = 'Bash|apply_patch';

/** What to record for a Codex payload, or null when Retrace does not record that event or tool. */
export function planCodexHook(p: Payload): HookRecord | null {
  const event = str(p.hook_event_name) ?? '';
  const base = {
    agent: 'codex' as const,
    event,
    session: str(p.session_id),
    dir: str(p.cwd),
    cwd: str(p.cwd),
    transcript: str(p.transcript_path),
    files: [] as string[],
  };
  switch (event) {
    case 'UserPromptSubmit':
      return { ...base, role: 'user', text: str(p.prompt) ?? '', meta: {} };
    case 'PostToolUse': {
      const tool = str(p.tool_name) ?? '';
      const command = str(obj(p.tool_input)?.command) ?? '';
      const meta: MessageMeta = { tool };
      const id = str(p.tool_use_id);
      if (id) meta.sourceId = id;
      if (tool === 'Bash') {
        meta.command = oneLine(command);
        return { ...base, role: 'tool', text: command ? `Bash ${meta.command}` : 'Bash', meta };
      }
      if (tool === 'apply_patch') {
        const files = patchPaths(command);
        if (files[0]) meta.file = files[0];
        return { ...base, role: 'tool', text: patchSummary(command), meta, files };
      }
      return null;
    }
    case 'Stop':
      return {
        ...base,
        role: 'assistant',
        text: str(p.last_assistant_message)?.trim() || 'Codex finished its turn',
        meta: {},
      };
    default:
      return null;
  }
}

/** An apply_patch call as one line, the same from the hook and from an imported rollout: `apply_patch a.ts, b.ts`. */
export function patchSummary(patch: string): string {
  const files = patchPaths(patch);
  return oneLine(files.length > 0 ? `apply_patch ${files.join(', ')}` : 'apply_patch', 300);
}

/** The files an apply_patch body names (added, updated, deleted, moved to), in order, each once. */
export function patchPaths(patch: string): string[] {
  const out: string[] = [];
  for (const line of patch.split(/\r?\n/)) {
    const m = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    const path = m?.[1]?.trim();
    if (path && !out.includes(path)) out.push(path);
  }
  return out;
}

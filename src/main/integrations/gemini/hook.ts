/**
 * `retrace hook gemini`: one Gemini CLI hook call (a JSON payload on stdin) recorded in the session of Gemini's
 * own id (source 'gemini', the id `retrace import gemini` gives the same chat).
 *
 * What Gemini CLI sends — looked up in its documentation, "Hooks reference" and "Gemini CLI hooks"
 * (geminicli.com/docs/hooks/reference, /docs/hooks; google-gemini/gemini-cli docs/hooks/reference.md and
 * index.md):
 * - hooks live in `settings.json` (user `~/.gemini/settings.json`, project `.gemini/settings.json`) under
 *   `hooks`: event → [{matcher, sequential, hooks: [{type: "command", command, name, timeout (milliseconds,
 *   default 60000), description}]}]. Events SessionStart, SessionEnd, BeforeAgent, AfterAgent, BeforeModel,
 *   AfterModel, BeforeToolSelection, BeforeTool, AfterTool, PreCompress, Notification. Tool matchers are
 *   regular expressions over tool names (write_file, replace, run_shell_command, read_file, …).
 * - every payload: `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`; the hook's
 *   environment has GEMINI_PROJECT_DIR (the project root), GEMINI_SESSION_ID, GEMINI_CWD.
 * - BeforeAgent: `prompt`. AfterTool: `tool_name`, `tool_input` (the model's arguments: write_file and
 *   replace carry `file_path`, run_shell_command `command`), `tool_response`. AfterAgent: `prompt`,
 *   `prompt_response` (the final reply), `stop_hook_active`.
 * - exit 0: stdout is parsed as JSON ("silence is mandatory": plain text breaks the parse and is shown to
 *   the person) — so the command prints `{}`, which allows and continues, and nothing else. Exit 2 would block.
 *
 * Used here: session_id, cwd (GEMINI_PROJECT_DIR first), hook_event_name, prompt, tool_name,
 * tool_input.file_path (the snapshot's hint) and .command, prompt_response, transcript_path (the origin).
 */
import type { MessageMeta } from '../../../shared/model';
import type { HookRecord } from '../hooks/record';
import { obj, oneLine, str, type Payload } from '../hooks/payload';

/** Tools whose calls change files: the AfterTool matcher install.ts writes. */
export const GEMINI_FILE_TOOLS = ['write_file', 'replace'];
export const GEMINI_SHELL_TOOL = 'run_shell_command';
export const GEMINI_AFTER_TOOL_MATCHER = [...GEMINI_FILE_TOOLS, GEMINI_SHELL_TOOL].join('|');

/** What to record for a Gemini CLI payload, or null when Retrace does not record that event or tool. */
export function planGeminiHook(p: Payload, env: NodeJS.ProcessEnv = process.env): HookRecord | null {
  const event = str(p.hook_event_name) ?? '';
  const cwd = str(p.cwd);
  const base = {
    agent: 'gemini' as const,
    event,
    session: str(p.session_id),
    // The project root Gemini CLI was started in; `cwd` may be a folder below it.
    dir: env.GEMINI_PROJECT_DIR || cwd,
    cwd,
    transcript: str(p.transcript_path),
    files: [] as string[],
  };
  switch (event) {
    case 'BeforeAgent':
      return { ...base, role: 'user', text: str(p.prompt) ?? '', meta: {} };
    case 'AfterTool': {
      const tool = str(p.tool_name) ?? '';
      const input = obj(p.tool_input) ?? {};
      const meta: MessageMeta = { tool };
      const text = geminiToolLine(tool, input, base.dir);
      if (GEMINI_FILE_TOOLS.includes(tool)) {
        const file = fileArg(input);
        if (file) meta.file = relativeTo(file, base.dir); // as the project names it
        return { ...base, role: 'tool', text, meta, files: file ? [file] : [] };
      }
      if (tool === GEMINI_SHELL_TOOL) {
        const command = str(input.command) ?? '';
        if (command) meta.command = oneLine(command);
        return { ...base, role: 'tool', text, meta };
      }
      return null;
    }
    case 'AfterAgent':
      return {
        ...base,
        role: 'assistant',
        text: str(p.prompt_response)?.trim() || 'Gemini finished its turn',
        meta: {},
      };
    default:
      return null;
  }
}

/**
 * A tool call as one line, the same from the hook and from an imported chat: its command
 * (`run_shell_command ls -la`), else its file as the project names it (`read_file src/a.ts`), else its arguments.
 */
export function geminiToolLine(tool: string, input: Record<string, unknown>, dir: string | undefined): string {
  const command = str(input.command);
  if (command) return `${tool} ${oneLine(command)}`;
  const file = fileArg(input);
  if (file) return `${tool} ${relativeTo(file, dir)}`;
  return Object.keys(input).length > 0 ? `${tool} ${JSON.stringify(input)}` : tool;
}

function fileArg(input: Record<string, unknown>): string | undefined {
  return str(input.file_path) ?? str(input.absolute_path) ?? str(input.path);
}

function relativeTo(path: string, cwd: string | undefined): string {
  if (!cwd) return path;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

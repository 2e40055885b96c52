/**
 * One line that says what a Claude Code tool call did: the tool, and the file, command or pattern it was
 * about. Used for the timeline text and for MessageMeta (tool / file / command). Pure.
 */
import { obj, str } from './jsonl';

export interface ToolSummary {
  tool: string;
  /** Workspace-relative where the file is inside the workspace, else as the agent wrote it. */
  file?: string;
  command?: string;
  /** "Edit src/app.ts", "Bash npm test", "Task Explore the code". */
  text: string;
}

const FILE_TOOLS = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'NotebookRead']);
const MAX_COMMAND = 200;

export function summarizeToolUse(name: string, input: unknown, cwd: string | null): ToolSummary {
  const inp = obj(input) ?? {};
  const tool = name || 'tool';
  if (FILE_TOOLS.has(tool)) {
    const path = str(inp.file_path) ?? str(inp.notebook_path) ?? str(inp.path);
    if (path) {
      const file = relativeToCwd(path, cwd);
      return { tool, file, text: `${tool} ${file}` };
    }
  }
  if (tool === 'Bash' || tool === 'BashOutput' || tool === 'KillBash' || tool === 'KillShell') {
    const command = str(inp.command);
    if (command) {
      const c = oneLine(command, MAX_COMMAND);
      return { tool, command: c, text: `${tool} ${c}` };
    }
    const id = str(inp.bash_id) ?? str(inp.shell_id);
    return { tool, text: id ? `${tool} ${id}` : tool };
  }
  if (tool === 'Task' || tool === 'Agent') {
    const what = str(inp.description) ?? str(inp.subagent_type);
    return { tool, text: what ? `${tool} ${oneLine(what, MAX_COMMAND)}` : tool };
  }
  if (tool === 'Glob' || tool === 'Grep') {
    const pattern = str(inp.pattern);
    return { tool, text: pattern ? `${tool} ${oneLine(pattern, MAX_COMMAND)}` : tool };
  }
  if (tool === 'WebFetch' || tool === 'WebSearch') {
    const what = str(inp.url) ?? str(inp.query);
    return { tool, text: what ? `${tool} ${oneLine(what, MAX_COMMAND)}` : tool };
  }
  if (tool === 'TodoWrite' && Array.isArray(inp.todos)) {
    return { tool, text: `${tool} ${inp.todos.length} todo${inp.todos.length === 1 ? '' : 's'}` };
  }
  return { tool, text: tool };
}

/** `/repo/src/a.ts` with cwd `/repo` → `src/a.ts`; paths outside the cwd stay as they are. */
export function relativeToCwd(path: string, cwd: string | null): string {
  if (!cwd) return path;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

export function oneLine(s: string, max: number): string {
  const first = s.trim().split('\n')[0]!.trim();
  const cut = first.length > max ? `${first.slice(0, max - 1)}…` : first;
  return s.trim().includes('\n') && cut === first ? `${cut} …` : cut;
}

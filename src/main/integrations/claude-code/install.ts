/**
 * `retrace install claude-code`: put Retrace's three hooks into a Claude Code settings file, keeping every
 * other setting and hook as it is. Running it again changes nothing (the file is not even rewritten); an
 * older Retrace hook entry is updated in place rather than duplicated. A file that is not valid JSON is left
 * untouched and reported.
 *
 * The command written is `retrace hook claude-code` when `retrace` is on PATH (npm link / a global install),
 * otherwise the absolute `node` and `bin/retrace.js` paths of this installation, so the hook works from
 * whatever shell Claude Code starts.
 */
import { join } from 'node:path';
import { isRetraceHookCommand, retraceHookCommand, type CommandOptions } from '../hooks/command';
import { installHooks, mergeHooks, type HookInstallResult, type HookSpec, type InstallScope } from '../hooks/hooksFile';
import { claudeConfigDir } from './paths';

export type { InstallScope };

/** The tools whose changes the hook checkpoints (Bash included: Claude Code's own rewind misses its changes). */
export const POST_TOOL_MATCHER = 'Edit|Write|MultiEdit|NotebookEdit|Bash';
export const HOOK_EVENTS = ['UserPromptSubmit', 'PostToolUse', 'Stop'] as const;
/** Seconds Claude Code waits for one hook call (the hook itself waits at most this for the workspace lock). */
export const HOOK_TIMEOUT_S = 30;

export function settingsPath(scope: InstallScope, opts: { cwd: string; env?: NodeJS.ProcessEnv }): string {
  return scope === 'user'
    ? join(claudeConfigDir(opts.env ?? process.env), 'settings.json')
    : join(opts.cwd, '.claude', 'settings.json');
}

/** Is this hook command one of ours (any spelling: `retrace …`, `node …/retrace.js …`)? */
export function isRetraceHook(command: unknown): boolean {
  return isRetraceHookCommand(command, 'claude-code');
}

/** The command to write: `retrace hook claude-code`, or absolute paths when `retrace` is not on PATH. */
export function hookCommand(opts: CommandOptions = {}): string {
  return retraceHookCommand('claude-code', opts);
}

/** Our three entries: a checkpoint at each prompt, after each file-changing tool, and at each reply. */
function hookSpecs(command: string): HookSpec[] {
  const entry = { type: 'command', command, timeout: HOOK_TIMEOUT_S };
  return HOOK_EVENTS.map((event) =>
    event === 'PostToolUse' ? { event, matcher: POST_TOOL_MATCHER, entry } : { event, entry },
  );
}

/** Merge our hooks into settings JSON text (null: no file yet). Returns the new text, or null if nothing changes. */
export function mergeHookSettings(text: string | null, command: string, file = 'settings.json'): string | null {
  return mergeHooks(text, hookSpecs(command), isRetraceHook, file);
}

export type InstallResult = HookInstallResult;

export function installClaudeCodeHooks(
  scope: InstallScope,
  opts: { cwd: string; env?: NodeJS.ProcessEnv; command?: string },
): InstallResult {
  const file = settingsPath(scope, opts);
  const command = opts.command ?? hookCommand(opts.env ? { env: opts.env } : {});
  const changed = installHooks(file, hookSpecs(command), isRetraceHook);
  return { settings: file, command, changed, events: [...HOOK_EVENTS] };
}

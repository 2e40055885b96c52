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
import {
  CLAUDE_HOOK_ROUTE,
  ensureHttpConfig,
  hookUrl,
  readHttpConfig,
  SECRET_HEADER,
  setHttpHooksInstalled,
  type HttpHookConfig,
} from '../../cli/hookServer/httpConfig';
import { isRetraceHookCommand, retraceHookCommand, type CommandOptions } from '../hooks/command';
import {
  installHooks,
  mergeHooks,
  removeHooks,
  uninstallHooks,
  type HookInstallResult,
  type HookUninstallResult,
  type HookSpec,
  type InstallScope,
} from '../hooks/hooksFile';
import { chooseTransport, installedClaudeVersion, type HookTransport } from './hookTransport';
import { claudeHooksTurnedOff } from './hooksSwitch';
import { claudeConfigDir } from './paths';

export type { InstallScope };

/** The tools whose changes the hook checkpoints (Bash included: Claude Code's own rewind misses its changes). */
export const POST_TOOL_MATCHER = 'Edit|Write|MultiEdit|NotebookEdit|Bash';
export const HOOK_EVENTS = ['UserPromptSubmit', 'PostToolUse', 'Stop'] as const;
/** Seconds Claude Code waits for one hook call (the hook itself waits at most this for the workspace lock). */
export const HOOK_TIMEOUT_S = 30;

/**
 * The settings file to write. A project's HTTP hooks go to `.claude/settings.local.json`, Claude Code's personal
 * project settings (git-ignored by convention): they carry this machine's port and secret, which must not be
 * committed with the team's `.claude/settings.json`.
 */
export function settingsPath(
  scope: InstallScope,
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
  transport: HookTransport = 'command',
): string {
  if (scope === 'user') return join(claudeConfigDir(opts.env ?? process.env), 'settings.json');
  return join(opts.cwd, '.claude', transport === 'http' ? 'settings.local.json' : 'settings.json');
}

const OUR_URL = new RegExp(`^http://127\\.0\\.0\\.1:\\d+${CLAUDE_HOOK_ROUTE}$`);

/** Is this hook command one of ours (any spelling: `retrace …`, `node …/retrace.js …`), or our HTTP hook's url? */
export function isRetraceHook(commandOrUrl: unknown): boolean {
  return (
    isRetraceHookCommand(commandOrUrl, 'claude-code') ||
    (typeof commandOrUrl === 'string' && OUR_URL.test(commandOrUrl))
  );
}

/** The command to write: `retrace hook claude-code`, or absolute paths when `retrace` is not on PATH. */
export function hookCommand(opts: CommandOptions = {}): string {
  return retraceHookCommand('claude-code', opts);
}

/**
 * Our three entries: a checkpoint at each prompt, after each file-changing tool, and at each reply. With
 * `http`, PostToolUse and Stop POST to the hook server; the prompt stays a command (it starts the server).
 */
function hookSpecs(command: string, http?: HttpHookConfig): HookSpec[] {
  const commandEntry = { type: 'command', command, timeout: HOOK_TIMEOUT_S };
  const httpEntry = http && {
    type: 'http',
    url: hookUrl(http),
    headers: { [SECRET_HEADER]: http.secret },
    timeout: HOOK_TIMEOUT_S,
  };
  return HOOK_EVENTS.map((event) => {
    const entry = httpEntry && event !== 'UserPromptSubmit' ? httpEntry : commandEntry;
    return event === 'PostToolUse' ? { event, matcher: POST_TOOL_MATCHER, entry } : { event, entry };
  });
}

/** Merge our hooks into settings JSON text (null: no file yet). Returns the new text, or null if nothing changes. */
export function mergeHookSettings(text: string | null, command: string, file = 'settings.json'): string | null {
  return mergeHooks(text, hookSpecs(command), isRetraceHook, file);
}

export interface InstallResult extends HookInstallResult {
  /** What PostToolUse and Stop were given (UserPromptSubmit is always a command hook). */
  transport: HookTransport;
  /** Why that transport (the flag, the Claude Code version, …). */
  transportReason: string;
  /** The HTTP hooks' url, when transport is http. */
  url?: string;
}

export async function installClaudeCodeHooks(
  scope: InstallScope,
  opts: {
    cwd: string;
    dataHome: string;
    env?: NodeJS.ProcessEnv;
    command?: string;
    transport?: HookTransport;
    /** Where the organisation's managed settings are (tests); default: where Claude Code reads them. */
    managedSettings?: string;
  },
): Promise<InstallResult> {
  const command = opts.command ?? hookCommand(opts.env ? { env: opts.env } : {});
  const { transport, why } = chooseTransport(opts.transport, scope, () => installedClaudeVersion(opts.env));
  const file = settingsPath(scope, opts, transport);
  const http = transport === 'http' ? await ensureHttpConfig(opts.dataHome) : undefined;
  let changed = installHooks(file, hookSpecs(command, http), isRetraceHook, { secret: http !== undefined });
  // A project's other settings file must not keep our hooks too: both files' hooks run (a double record).
  if (scope === 'project') {
    const other = settingsPath(scope, opts, transport === 'http' ? 'command' : 'http');
    changed = removeHooks(other, isRetraceHook) || changed;
  }
  // Only HTTP hooks can lose a call while no server runs: the prompt hook marks such gaps (serverGap.ts).
  const saved = http ?? readHttpConfig(opts.dataHome);
  if (saved) setHttpHooksInstalled(opts.dataHome, saved, transport === 'http');
  const off = claudeHooksTurnedOff(scope, opts);
  return {
    settings: file,
    command,
    changed,
    events: [...HOOK_EVENTS],
    ...(off ? { notes: [`hooks are turned off in ${off.file} (${off.key}): Claude Code runs none of Retrace's`] } : {}),
    transport,
    transportReason: why,
    ...(http ? { url: hookUrl(http) } : {}),
  };
}

/** `retrace uninstall claude-code`: our hooks out of the scope's settings (a project's shared and personal file). */
export function uninstallClaudeCodeHooks(
  scope: InstallScope,
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): HookUninstallResult {
  const files =
    scope === 'user' ? [settingsPath(scope, opts)] : [settingsPath(scope, opts), settingsPath(scope, opts, 'http')];
  return uninstallHooks(files, isRetraceHook);
}

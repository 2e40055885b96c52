/**
 * `retrace install gemini [--user | --project]`: Retrace's hooks in Gemini CLI's `settings.json` — the
 * user's (`~/.gemini/settings.json`; GEMINI_DIR names that folder itself, GEMINI_CLI_HOME stands for the home
 * folder as Gemini CLI reads it) or the project's (`<cwd>/.gemini/settings.json`). Keeps every setting and
 * hook already there, changes nothing the second time, refuses a file that is not JSON
 * (../hooks/hooksFile.ts). Event names and the file's shape: see ./hook.ts.
 */
import { join } from 'node:path';
import { geminiDir } from './paths';
import { isRetraceHookCommand, retraceHookCommand } from '../hooks/command';
import {
  installHooks,
  uninstallHooks,
  type HookInstallResult,
  type HookSpec,
  type HookUninstallResult,
  type InstallScope,
} from '../hooks/hooksFile';
import { GEMINI_AFTER_TOOL_MATCHER } from './hook';
import { geminiHooksTurnedOff } from './hooksSwitch';

export const GEMINI_HOOK_EVENTS = ['BeforeAgent', 'AfterTool', 'AfterAgent'] as const;
/** Milliseconds Gemini CLI waits for one hook call (its unit is ms, not s). */
export const GEMINI_HOOK_TIMEOUT_MS = 30_000;
/** Gemini CLI names hooks in `/hooks panel` and `/hooks disable NAME`. */
export const GEMINI_HOOK_NAME = 'retrace';

export { geminiDir };

export function geminiSettingsPath(scope: InstallScope, opts: { cwd: string; env?: NodeJS.ProcessEnv }): string {
  return scope === 'user' ? join(geminiDir(opts.env), 'settings.json') : join(opts.cwd, '.gemini', 'settings.json');
}

export function installGeminiHooks(
  scope: InstallScope,
  opts: { cwd: string; env?: NodeJS.ProcessEnv; command?: string },
): HookInstallResult {
  const file = geminiSettingsPath(scope, opts);
  const command = opts.command ?? retraceHookCommand('gemini', opts.env ? { env: opts.env } : {});
  const entry = { name: GEMINI_HOOK_NAME, type: 'command', command, timeout: GEMINI_HOOK_TIMEOUT_MS };
  const specs: HookSpec[] = GEMINI_HOOK_EVENTS.map((event) =>
    event === 'AfterTool' ? { event, matcher: GEMINI_AFTER_TOOL_MATCHER, entry } : { event, entry },
  );
  const changed = installHooks(file, specs, (c) => isRetraceHookCommand(c, 'gemini'));
  // Gemini CLI treats a folder as untrusted until the person trusts it, and ignores an untrusted folder's hooks.
  const notes =
    scope === 'project' ? ['Gemini CLI runs these hooks only in a folder it trusts: /permissions in Gemini CLI'] : [];
  const off = geminiHooksTurnedOff(scope, GEMINI_HOOK_NAME, opts);
  if (off)
    notes.push(
      `hooks are turned off in ${off.file} (${off.key}): Gemini CLI runs none of Retrace's until that is changed`,
    );
  return { settings: file, command, changed, events: [...GEMINI_HOOK_EVENTS], ...(notes.length > 0 ? { notes } : {}) };
}

export function uninstallGeminiHooks(
  scope: InstallScope,
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): HookUninstallResult {
  return uninstallHooks([geminiSettingsPath(scope, opts)], (c) => isRetraceHookCommand(c, 'gemini'));
}

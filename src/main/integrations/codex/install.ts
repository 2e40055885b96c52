/**
 * `retrace install codex [--user | --project]`: Retrace's hooks in Codex CLI's `hooks.json` — the user's
 * (`$CODEX_HOME/hooks.json`, CODEX_HOME defaulting to ~/.codex) or the project's (`<cwd>/.codex/hooks.json`).
 * Keeps everything already there, changes nothing the second time, refuses a file that is not JSON
 * (../hooks/hooksFile.ts). Event names and the file's shape: see ./hook.ts.
 */
import { join } from 'node:path';
import { codexHome } from './paths';
import { isRetraceHookCommand, retraceHookCommand } from '../hooks/command';
import {
  installHooks,
  uninstallHooks,
  type HookInstallResult,
  type HookSpec,
  type HookUninstallResult,
  type InstallScope,
} from '../hooks/hooksFile';
import { CODEX_POST_TOOL_MATCHER } from './hook';
import { codexHooksTurnedOff } from './hooksSwitch';

export const CODEX_HOOK_EVENTS = ['UserPromptSubmit', 'PostToolUse', 'Stop'] as const;
/** Seconds Codex waits for one hook call (the hook waits at most this for the workspace lock). */
export const CODEX_HOOK_TIMEOUT_S = 30;

export { codexHome };

export function codexHooksPath(scope: InstallScope, opts: { cwd: string; env?: NodeJS.ProcessEnv }): string {
  return scope === 'user' ? join(codexHome(opts.env), 'hooks.json') : join(opts.cwd, '.codex', 'hooks.json');
}

export function installCodexHooks(
  scope: InstallScope,
  opts: { cwd: string; env?: NodeJS.ProcessEnv; command?: string },
): HookInstallResult {
  const file = codexHooksPath(scope, opts);
  const command = opts.command ?? retraceHookCommand('codex', opts.env ? { env: opts.env } : {});
  const entry = { type: 'command', command, timeout: CODEX_HOOK_TIMEOUT_S };
  const specs: HookSpec[] = CODEX_HOOK_EVENTS.map((event) =>
    event === 'PostToolUse' ? { event, matcher: CODEX_POST_TOOL_MATCHER, entry } : { event, entry },
  );
  const changed = installHooks(file, specs, (c) => isRetraceHookCommand(c, 'codex'));
  // Codex runs a hook someone else wrote only once the person trusted it (`/hooks`), and loads a project's hooks
  // only in a project it trusts: without a word here, the first session records nothing and says nothing.
  const notes = [
    scope === 'project'
      ? "Codex runs these hooks once you trust them: open /hooks in Codex (and trust the project's .codex folder when it asks)"
      : 'Codex runs these hooks once you trust them: open /hooks in Codex',
  ];
  const off = codexHooksTurnedOff(scope, opts);
  if (off) notes.push(`hooks are turned off in ${off.file} (${off.key}): Codex runs none until that is changed`);
  return { settings: file, command, changed, events: [...CODEX_HOOK_EVENTS], notes };
}

export function uninstallCodexHooks(
  scope: InstallScope,
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): HookUninstallResult {
  return uninstallHooks([codexHooksPath(scope, opts)], (c) => isRetraceHookCommand(c, 'codex'));
}

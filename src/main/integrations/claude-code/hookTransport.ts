/**
 * Which kind of hook `retrace install claude-code` writes for PostToolUse and Stop: HTTP hooks to the resident
 * hook server (no process per tool call) or command hooks. UserPromptSubmit always stays a command hook: it
 * is what starts the server when none runs (the hook client does), so the turn's HTTP calls find one.
 */
import { execFileSync } from 'node:child_process';
import { FIRST_HTTP_HOOK_VERSION } from '../../cli/hookServer/httpConfig';
import { compareVersions } from './versions';

export type HookTransport = 'http' | 'command';

/** `claude --version` (e.g. "2.1.220 (Claude Code)") → "2.1.220"; null when claude is absent or says nothing usable. */
export function installedClaudeVersion(env: NodeJS.ProcessEnv = process.env): string | null {
  try {
    const out = execFileSync('claude', ['--version'], {
      encoding: 'utf8',
      env,
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return /(\d+\.\d+\.\d+)/.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * The transport to install and why. Forced by --http/--command; otherwise HTTP only when the installed Claude
 * Code is known to have HTTP hooks, and not for a project by default (see settingsPath: with --http they go to its
 * personal, git-ignored settings file, never the shared one).
 */
export function chooseTransport(
  forced: HookTransport | undefined,
  scope: 'user' | 'project',
  version: () => string | null,
): { transport: HookTransport; why: string } {
  if (forced) return { transport: forced, why: `--${forced}` };
  // No hook server runs on Windows (see hookServer/server.ts): every HTTP call would be lost.
  if (process.platform === 'win32') return { transport: 'command', why: 'no hook server on Windows' };
  if (scope === 'project')
    return {
      transport: 'command',
      why: 'a project install stays with command hooks; --http puts HTTP hooks (they carry a secret) in the personal .claude/settings.local.json',
    };
  const v = version();
  if (v === null) return { transport: 'command', why: 'no `claude --version` to tell whether HTTP hooks exist' };
  return compareVersions(v, FIRST_HTTP_HOOK_VERSION) >= 0
    ? { transport: 'http', why: `Claude Code ${v} has HTTP hooks` }
    : { transport: 'command', why: `Claude Code ${v} predates HTTP hooks (${FIRST_HTTP_HOOK_VERSION})` };
}

/**
 * `retrace install claude-code|codex|gemini [--user | --project]` — add Retrace's hooks to the agent's settings
 * (Claude Code's settings.json, Codex's hooks.json, Gemini CLI's settings.json).
 */
import { resolve } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { InstallResult } from '../../integrations/claude-code/install';
import { agentAndScope } from '../args';
import type { Command } from '../command';

const usage = 'install (claude-code | codex | gemini) [--user | --project] [--http | --command]';

export const command: Command = {
  usage,
  options: {
    user: { type: 'boolean' },
    project: { type: 'boolean' },
    // claude-code: PostToolUse and Stop as HTTP hooks to the hook server, or as command hooks (default: by version).
    http: { type: 'boolean' },
    command: { type: 'boolean' },
  },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const { agent, scope } = agentAndScope(ctx.positionals[0], ctx.values, usage);
    if (ctx.values.http === true && ctx.values.command === true)
      throw new RetraceError('E_USAGE', `give --http or --command, not both; usage: retrace ${usage}`);
    if ((ctx.values.http === true || ctx.values.command === true) && agent !== 'claude-code')
      throw new RetraceError('E_USAGE', `--http and --command are for claude-code only; usage: retrace ${usage}`);
    const transport = ctx.values.http === true ? 'http' : ctx.values.command === true ? 'command' : undefined;
    const cwd = resolve(ctx.cwd);
    const res =
      agent === 'codex'
        ? (await import('../../integrations/codex/install')).installCodexHooks(scope, { cwd })
        : agent === 'gemini'
          ? (await import('../../integrations/gemini/install')).installGeminiHooks(scope, { cwd })
          : await (
              await import('../../integrations/claude-code/install')
            ).installClaudeCodeHooks(scope, { cwd, dataHome: ctx.dataHome(), ...(transport ? { transport } : {}) });
    const http = 'transport' in res ? (res as InstallResult) : null;
    ctx.out.result({ ...res, scope }, () => [
      res.changed
        ? `added Retrace's hooks (${res.events.join(', ')}) to ${res.settings}`
        : `Retrace's hooks are already in ${res.settings}; nothing changed`,
      `  hook command: ${res.command}`,
      ...(res.notes ?? []).map((n) => `  note: ${n}`),
      ...(http
        ? [
            http.transport === 'http'
              ? `  PostToolUse and Stop: HTTP hooks to ${http.url} (${http.transportReason})`
              : `  PostToolUse and Stop: command hooks (${http.transportReason})`,
          ]
        : []),
    ]);
  },
};

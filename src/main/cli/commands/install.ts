/** `retrace install claude-code [--user | --project]` — add Retrace's hooks to Claude Code's settings. */
import { resolve } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { Command } from '../command';

const usage = 'install claude-code [--user | --project]';

export const command: Command = {
  usage,
  options: { user: { type: 'boolean' }, project: { type: 'boolean' } },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    if (ctx.positionals[0] !== 'claude-code')
      throw new RetraceError(
        'E_USAGE',
        `unknown integration ${JSON.stringify(ctx.positionals[0])}; usage: retrace ${usage}`,
      );
    if (ctx.values.user === true && ctx.values.project === true)
      throw new RetraceError('E_USAGE', `give --user or --project, not both; usage: retrace ${usage}`);
    const scope = ctx.values.project === true ? 'project' : 'user';
    const { installClaudeCodeHooks } = await import('../../integrations/claude-code/install');
    const res = installClaudeCodeHooks(scope, { cwd: resolve(ctx.cwd) });
    ctx.out.result({ ...res, scope }, () => [
      res.changed
        ? `added Retrace's hooks (${res.events.join(', ')}) to ${res.settings}`
        : `Retrace's hooks are already in ${res.settings}; nothing changed`,
      `  hook command: ${res.command}`,
    ]);
  },
};

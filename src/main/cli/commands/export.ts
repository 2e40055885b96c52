import { RetraceError } from '../../../shared/errors';
import type { Command } from '../command';
import { str } from '../args';
import { exportAgentTrace } from '../../usecases/agentTrace';

export const command: Command = {
  usage: 'export --agent-trace [--session ID]',
  options: { 'agent-trace': { type: 'boolean' }, session: { type: 'string' } },
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    if (ctx.values['agent-trace'] !== true)
      throw new RetraceError('E_USAGE', 'name a format: retrace export --agent-trace [--session ID]');
    const session = str(ctx.values, 'session');
    const record = await exportAgentTrace(await ctx.engine(), session !== undefined ? { session } : {});
    // The record is JSON either way: it is meant for other tools.
    ctx.out.result(record, () => JSON.stringify(record, null, 2));
  },
};

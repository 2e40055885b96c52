import type { Command } from '../command';
import { strings } from '../args';
import { push } from '../../usecases/share';

export const command: Command = {
  usage: 'push [REMOTE] [--session ID]...',
  options: { session: { type: 'string', multiple: true } },
  positionals: { min: 0, max: 1 },
  async run(ctx) {
    const engine = await ctx.engine();
    const sessions = strings(ctx.values, 'session');
    const r = await push(engine, { remote: ctx.positionals[0], sessions, base: process.cwd() });
    ctx.out.result(r, () =>
      r.pushed.length === 0 ? `nothing new to push to ${r.remote}` : [`pushed to ${r.remote}:`, ...r.pushed],
    );
  },
};

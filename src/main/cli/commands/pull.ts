import type { Command } from '../command';
import { pull } from '../../usecases/share';

export const command: Command = {
  usage: 'pull [REMOTE]',
  options: {},
  positionals: { min: 0, max: 1 },
  async run(ctx) {
    const engine = await ctx.engine();
    const r = await pull(engine, { remote: ctx.positionals[0], base: process.cwd() });
    ctx.out.result(r, () =>
      r.pulled.length === 0 ? `nothing new from ${r.remote}` : [`pulled from ${r.remote} (read-only):`, ...r.pulled],
    );
  },
};

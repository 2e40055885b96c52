/**
 * `retrace forget SESSION [--force]` → {"removed": [ID], "storageBytes": N}: one session, whatever its age.
 * A labelled one, or one being recorded now, is refused (E_KEPT) unless --force.
 */
import { forgetSession } from '../../usecases/storage';
import type { Command } from '../command';
import { gcLines } from './gc';

export const command: Command = {
  usage: 'forget SESSION [--force]',
  options: { force: { type: 'boolean' } },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const res = await forgetSession(await ctx.engine(), ctx.positionals[0]!, { force: ctx.values.force === true });
    ctx.out.result(res, () => gcLines(res));
  },
};

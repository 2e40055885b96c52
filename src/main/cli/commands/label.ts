import { RetraceError } from '../../../shared/errors';
import { short } from '../output';
import type { Command } from '../command';
import { labelCheckpoint } from '../../usecases/label';

const USAGE = 'label CHECKPOINT TEXT | label CHECKPOINT --remove';

export const command: Command = {
  usage: USAGE,
  options: { remove: { type: 'boolean' } },
  positionals: { min: 1, max: 2 },
  async run(ctx) {
    const [spec, text] = ctx.positionals as [string, string | undefined];
    const remove = ctx.values.remove === true;
    if (remove === (text !== undefined))
      throw new RetraceError('E_USAGE', `give either the label's TEXT or --remove; usage: retrace ${USAGE}`);
    const res = await labelCheckpoint(await ctx.engine(), spec, remove ? null : text!);
    ctx.out.result(res, () =>
      res.label === null
        ? `checkpoint ${short(res.hash)} has no label`
        : `checkpoint ${short(res.hash)} labelled «${res.label}»`,
    );
  },
};

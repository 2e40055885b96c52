import type { Command } from '../command';

export const command: Command = {
  usage: 'undo',
  options: {},
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const res = await (await ctx.engine()).undo();
    ctx.out.result(res, () => [
      `undid ${res.undone} (recorded as ${res.restore}); ${res.changed.length} file(s) changed`,
      ...res.changed.map((p) => `  ${p}`),
    ]);
  },
};

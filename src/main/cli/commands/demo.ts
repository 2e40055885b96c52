/** `retrace demo [DIR]` — a small project with a recorded multi-turn session; prints its folder. */
import type { Command } from '../command';

export const command: Command = {
  usage: 'demo [DIR]',
  options: {},
  positionals: { min: 0, max: 1 },
  async run(ctx) {
    const { createDemo } = await import('../../integrations/demo');
    const dir = ctx.positionals[0];
    const res = await createDemo({ ...(dir !== undefined ? { dir } : {}), dataHome: ctx.dataHome() });
    ctx.out.result({ workspace: res.workspace, session: res.session }, () => [
      res.workspace,
      `  session ${res.session}: ${res.messages} messages, ${res.checkpoints} checkpoints`,
      `  look at it: retrace serve ${res.workspace}   (or: retrace log --cwd ${res.workspace})`,
    ]);
  },
};

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
    // stdout is the folder alone, so `retrace serve "$(retrace demo)"` works (the README's first command).
    if (!ctx.json)
      ctx.out.note(`demo session ${res.session}: ${res.messages} messages, ${res.checkpoints} checkpoints`);
    ctx.out.result({ workspace: res.workspace, session: res.session }, () => res.workspace);
  },
};

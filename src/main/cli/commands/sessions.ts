import { firstLine } from '../output';
import type { Command } from '../command';

export const command: Command = {
  usage: 'sessions',
  options: {},
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const list = await (await ctx.engine()).listSessions();
    ctx.out.result(list, () =>
      list.length === 0
        ? 'no sessions yet'
        : list.map(
            (s) =>
              `${s.id}  ${s.agent.padEnd(11)}  ${s.updatedAt}  ${s.messages} messages, ${s.checkpoints} checkpoints  ${firstLine(s.title, 50)}`,
          ),
    );
  },
};

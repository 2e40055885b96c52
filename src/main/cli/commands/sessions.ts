import { sessionsWithBytes } from '../../usecases/storage';
import { firstLine, formatBytes } from '../output';
import type { Command } from '../command';

export const command: Command = {
  usage: 'sessions',
  options: {},
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const list = await sessionsWithBytes(await ctx.engine());
    ctx.out.result(list, () =>
      list.length === 0
        ? 'no sessions yet'
        : list.map(
            (s) =>
              `${s.id}  ${s.agent.padEnd(11)}  ${s.updatedAt}  ${s.messages} messages, ${s.checkpoints} checkpoints, ${formatBytes(s.bytes ?? 0)}  ${firstLine(s.title, 50)}`,
          ),
    );
  },
};

import type { Command } from '../command';
import { relativeToRoot, str } from '../args';
import { short } from '../output';
import { blame } from '../../usecases/blame';

export const command: Command = {
  usage: 'blame PATH [--session ID]',
  options: { session: { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const engine = await ctx.engine();
    const session = str(ctx.values, 'session');
    const result = await blame(engine, relativeToRoot(engine.ws.root, ctx.positionals[0]!), {
      ...(session !== undefined ? { session } : {}),
    });
    ctx.out.result(result, () =>
      result.lines.map((l) => {
        const who = l.origin === 'agent' ? (l.agent ?? 'agent') : l.origin;
        const step = l.hash ? `${short(l.hash)} ${l.role ?? ''}`.trim() : '(none)';
        return `${String(l.line).padStart(5)}  ${step.padEnd(18)} ${who}`;
      }),
    );
  },
};

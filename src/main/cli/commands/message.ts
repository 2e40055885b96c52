import { firstLine, short } from '../output';
import { required, role, str } from '../args';
import type { Command } from '../command';

const usage = 'message --role user|assistant|tool|system --text TEXT [--session ID] [--checkpoint]';

export const command: Command = {
  usage,
  options: {
    role: { type: 'string' },
    text: { type: 'string' },
    session: { type: 'string' },
    checkpoint: { type: 'boolean' },
  },
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const r = role(required(ctx.values, 'role', usage));
    const text = required(ctx.values, 'text', usage);
    const session = str(ctx.values, 'session');
    const engine = await ctx.engine();
    const res = await engine.record({
      role: r,
      text,
      checkpoint: ctx.values.checkpoint === true,
      ...(session !== undefined ? { session } : {}),
    });
    ctx.out.result(
      // notCaptured (additive): files the snapshot saw but did not store.
      {
        session: res.session,
        message: res.message,
        hash: res.hash,
        ...(res.notCaptured ? { notCaptured: res.notCaptured } : {}),
      },
      () =>
        `${r} message ${res.message} in ${res.session}${res.hash ? ` (checkpoint ${short(res.hash)})` : ''}: ${firstLine(text, 60)}`,
    );
  },
};

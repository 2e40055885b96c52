import { short } from '../output';
import { str } from '../args';
import type { Command } from '../command';

export const command: Command = {
  usage: 'checkpoint [--session ID] [--text LABEL]',
  options: { session: { type: 'string' }, text: { type: 'string' } },
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const session = str(ctx.values, 'session');
    const text = str(ctx.values, 'text');
    const engine = await ctx.engine();
    const res = await engine.checkpoint({
      ...(session !== undefined ? { session } : {}),
      ...(text !== undefined ? { text } : {}),
    });
    const changed = res.changed ?? { added: 0, modified: 0, deleted: 0 };
    ctx.out.result({ session: res.session, message: res.message, hash: res.hash, changed }, () => {
      const n = changed.added + changed.modified + changed.deleted;
      const what =
        n === 0 ? 'no change' : `${changed.added} added, ${changed.modified} modified, ${changed.deleted} deleted`;
      return `checkpoint ${short(res.hash)} in ${res.session} (${res.message}): ${what}`;
    });
  },
};

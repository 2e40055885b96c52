import { short, shownPath } from '../output';
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
    const progress = ctx.out.progress();
    const res = await engine
      .checkpoint({
        ...(session !== undefined ? { session } : {}),
        ...(text !== undefined ? { text } : {}),
        onProgress: progress.update,
      })
      .finally(progress.end);
    const changed = res.changed ?? { added: 0, modified: 0, deleted: 0 };
    // notCaptured (additive): files the snapshot saw but did not store, so a script can tell.
    const doc = {
      session: res.session,
      message: res.message,
      hash: res.hash,
      changed,
      ...(res.notCaptured ? { notCaptured: res.notCaptured } : {}),
    };
    ctx.out.result(doc, () => {
      const n = changed.added + changed.modified + changed.deleted;
      const what =
        n === 0 ? 'no change' : `${changed.added} added, ${changed.modified} modified, ${changed.deleted} deleted`;
      const lines = [`checkpoint ${short(res.hash)} in ${res.session} (${res.message}): ${what}`];
      for (const n of res.notCaptured ?? []) lines.push(`  not captured: ${shownPath(n.path)} (${n.reason})`);
      return lines;
    });
  },
};

import { describeUndo } from '../../../shared/undoWords';
import type { Command } from '../command';
import { shownPath } from '../output';

export const command: Command = {
  usage: 'undo [RESTORE_ID]',
  options: {},
  positionals: { min: 0, max: 1 },
  async run(ctx) {
    const engine = await ctx.engine();
    const res = await engine.undo(ctx.positionals[0]);
    if (ctx.json) return ctx.out.result(res, () => []);
    // The words depend on what was undone (files, messages, or a redo): the ledger says.
    const undone = (await engine.restores()).find((e) => e.restore === res.undone);
    ctx.out.result(res, () => [
      `${describeUndo(res, undone)} (${res.undone}; recorded as ${res.restore}, \`retrace undo ${res.restore}\` reverses it)`,
      ...res.changed.map((p) => `  ${shownPath(p)}`),
    ]);
  },
};

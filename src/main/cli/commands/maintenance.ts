/**
 * `retrace maintenance` (internal): background upkeep of one workspace — the repairs a reader found pending,
 * a pack with gc when due (engine/maintenance.ts). Started detached after a checkpoint now and then; it takes
 * the writer lock only if it is free right now, so it never makes a hook wait, and it exits at once when
 * another writer is busy.
 */
import type { Command } from '../command';

export const command: Command = {
  usage: 'maintenance [--force]',
  options: { force: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const r = await (await ctx.engine()).maintenance({ force: ctx.values.force === true });
    ctx.out.result(r, () => [
      r.ran
        ? `maintenance done${r.packed ? ' (packed)' : ''}`
        : r.holder
          ? `maintenance skipped: ${r.holder}`
          : 'maintenance: nothing due (--force runs it anyway)',
    ]);
  },
};

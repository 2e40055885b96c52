import { formatBytes, short } from '../output';
import type { Command } from '../command';

export const command: Command = {
  usage: 'status',
  options: {},
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const s = await (await ctx.engine()).status();
    ctx.out.result(s, () => [
      `workspace  ${s.workspace}`,
      `sessions   ${s.sessions}, checkpoints ${s.checkpoints}, storage ${formatBytes(s.storageBytes)}${s.archiveBytes ? `, archived transcripts ${formatBytes(s.archiveBytes)}` : ''}`,
      s.lastRestore
        ? `last restore ${s.lastRestore.restore} (${s.lastRestore.undoOf ? `undo of ${s.lastRestore.undoOf}` : `${s.lastRestore.mode} to ${short(s.lastRestore.target.hash)}`}) at ${s.lastRestore.ts}${s.canUndo ? '; `retrace undo` reverts it' : ''}`
        : 'no restore yet',
      ...s.recovered.map((r) => `recovered  ${r.ts} ${r.kind}: ${r.detail}`),
      ...(s.pendingRepairs ?? []).map((p) => `pending    ${p} (another writer is busy; the next command repairs it)`),
      ...(s.missed ?? []).map(
        (m) =>
          `missed     ${m.ts} checkpoint not recorded${m.tool ? ` (${m.tool})` : ''}${m.session ? ` in ${m.session}` : ''}: ${m.reason}`,
      ),
    ]);
  },
};

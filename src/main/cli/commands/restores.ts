import type { RestoreEntry } from '../../../shared/model';
import { restoreKind } from '../../../shared/undoWords';
import { short } from '../output';
import type { Command } from '../command';

export const command: Command = {
  usage: 'restores',
  options: {},
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const list = await (await ctx.engine()).restores();
    ctx.out.result(list.map(cliShape), () =>
      list.length === 0
        ? 'no restores yet'
        : table(['RESTORE', 'TIME', 'MODE', 'TARGET', 'FILES', 'STATE'], list.map(row)),
    );
  },
};

/** Exactly the fields CLI.md promises (the app's extra hints stay out of the scripting contract). */
function cliShape(e: RestoreEntry): Pick<RestoreEntry, 'restore' | 'mode' | 'target' | 'ts' | 'changed' | 'undone'> {
  return { restore: e.restore, mode: e.mode, target: e.target, ts: e.ts, changed: e.changed, undone: e.undone };
}

function row(e: RestoreEntry): string[] {
  const what = e.mode === 'undo' ? `${e.redo ? 'redo (undid' : 'undo (of'} ${e.undoOf}, ${restoreKind(e)})` : e.mode;
  return [
    e.restore,
    e.ts,
    what,
    `${short(e.target.hash)} ${e.target.session}`,
    String(e.changed),
    e.undone ? 'undone' : '',
  ];
}

/** Columns padded to their widest cell. */
function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

import type { Command } from '../command';
import { relativeToRoot, str } from '../args';
import { resolveSide } from '../../usecases/compare';
import { shownPath } from '../output';

export const command: Command = {
  usage: 'diff FROM [TO] [--file PATH]',
  options: { file: { type: 'string' } },
  positionals: { min: 1, max: 2 },
  async run(ctx) {
    const engine = await ctx.engine();
    const from = await resolveSide(engine, ctx.positionals[0]!);
    const to = await resolveSide(engine, ctx.positionals[1] ?? 'working');
    const file = str(ctx.values, 'file');
    if (file !== undefined) {
      const c = await engine.fileContents(from, to, await engine.checkPath(relativeToRoot(engine.ws.root, file)));
      const out = {
        path: c.path,
        binary: c.binary,
        before: c.before,
        after: c.after,
        ...(c.tooLarge ? { tooLarge: true } : {}),
      };
      ctx.out.result(out, () => {
        if (c.binary) return `${shownPath(c.path)}: binary file`;
        if (c.tooLarge) return `${shownPath(c.path)}: too large to show`;
        return [
          `--- ${c.before !== null ? shownPath(c.path) : '/dev/null'}`,
          `+++ ${c.after !== null ? shownPath(c.path) : '/dev/null'}`,
          ...simpleDiff(c.before ?? '', c.after ?? ''),
        ];
      });
      return;
    }
    const files = await engine.diff(from, to);
    ctx.out.result({ from, to, files }, () =>
      files.length === 0
        ? 'no changes'
        : files.map((f) => {
            const tag = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R', 'type-changed': 'T' }[f.status];
            const name = f.oldPath ? `${shownPath(f.oldPath)} → ${shownPath(f.path)}` : shownPath(f.path);
            return `${tag} ${name}  ${f.binary ? 'binary' : `+${f.insertions} -${f.deletions}`}`;
          }),
    );
  },
};

/** A plain line diff for people (the JSON carries both sides; the app shows a real side-by-side view). */
function simpleDiff(a: string, b: string): string[] {
  const x = a.split('\n');
  const y = b.split('\n');
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX--;
    endY--;
  }
  return [
    `@@ line ${start + 1} @@`,
    ...x.slice(start, endX).map((l) => `-${l}`),
    ...y.slice(start, endY).map((l) => `+${l}`),
  ];
}

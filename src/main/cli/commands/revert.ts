import { short, shownPath } from '../output';
import { relativeToRoot, strings } from '../args';
import type { Command } from '../command';
import { revertStep, withoutPreview } from '../../usecases/revert';

export const command: Command = {
  usage: 'revert CHECKPOINT [--file PATH]... [--dry-run] [--merge]',
  options: {
    file: { type: 'string', multiple: true },
    'dry-run': { type: 'boolean' },
    merge: { type: 'boolean' },
  },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const engine = await ctx.engine();
    // An absolute path inside the workspace is accepted from people; the engine checks everything else.
    const paths = strings(ctx.values, 'file').map((f) => relativeToRoot(engine.ws.root, f));
    const res = withoutPreview(
      await revertStep(engine, {
        target: ctx.positionals[0]!,
        ...(paths.length > 0 ? { paths } : {}),
        dryRun: ctx.values['dry-run'] === true,
        merge: ctx.values.merge === true,
      }),
    );
    ctx.out.result(res, () => {
      const verb = res.dryRun ? 'would revert' : 'reverted';
      const lines = [
        `${verb} the step of ${short(res.target.hash)} (${res.target.message} in ${res.target.session}); later changes kept`,
        `  ${res.changed.length} file(s) ${res.dryRun ? 'would change' : 'changed'}${res.safety ? `; safety checkpoint ${short(res.safety)}` : ''}`,
        ...res.changed.map((p) => `    ${shownPath(p)}`),
      ];
      for (const c of res.conflicts)
        lines.push(`  conflict: ${shownPath(c.path)} (${c.hunks} hunk(s)${res.dryRun ? '' : ', markers written'})`);
      if (!res.dryRun) lines.push(`  undo with: retrace undo ${res.restore}`);
      return lines;
    });
  },
};

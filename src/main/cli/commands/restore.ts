import { RetraceError } from '../../../shared/errors';
import type { RestoreMode } from '../../../shared/model';
import { short, shownPath } from '../output';
import { relativeToRoot, strings } from '../args';
import type { Command } from '../command';
import { restoreAndFork } from '../../usecases/restore';

const usage = 'restore TARGET (--code | --conversation | --both) [--file PATH]... [--dry-run]';

export const command: Command = {
  usage,
  options: {
    code: { type: 'boolean' },
    conversation: { type: 'boolean' },
    both: { type: 'boolean' },
    file: { type: 'string', multiple: true },
    'dry-run': { type: 'boolean' },
  },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const modes = (['code', 'conversation', 'both'] as const).filter((m) => ctx.values[m] === true);
    if (modes.length !== 1) {
      throw new RetraceError('E_USAGE', `give exactly one of --code, --conversation, --both; usage: retrace ${usage}`);
    }
    const mode: RestoreMode = modes[0]!;
    const files = strings(ctx.values, 'file');
    if (files.length > 0 && mode === 'conversation')
      throw new RetraceError('E_USAGE', '--file limits a code restore; use it with --code or --both');
    const engine = await ctx.engine();
    // An absolute path inside the workspace is accepted from people; the engine checks everything else.
    const paths = files.map((f) => relativeToRoot(engine.ws.root, f));
    const { result: res, problem } = await restoreAndFork(engine, {
      target: ctx.positionals[0]!,
      mode,
      ...(paths.length > 0 ? { paths } : {}),
      dryRun: ctx.values['dry-run'] === true,
    });
    if (problem) ctx.out.note(problem);
    ctx.out.result(res, () => {
      const verb = res.dryRun ? 'would restore' : 'restored';
      const lines = [`${verb} ${mode} to ${short(res.target.hash)} (${res.target.message} in ${res.target.session})`];
      if (mode !== 'conversation')
        lines.push(
          `  ${res.changed.length} file(s) ${res.dryRun ? 'would change' : 'changed'}${res.safety ? `; safety checkpoint ${short(res.safety)}` : ''}`,
        );
      for (const p of res.changed) lines.push(`    ${shownPath(p)}`);
      for (const k of res.skipped ?? []) lines.push(`  left alone: ${shownPath(k.path)} (${k.reason})`);
      if (mode !== 'code')
        lines.push(`  ${res.hidden} message(s) ${res.dryRun ? 'would be' : ''} hidden`.replace('  hidden', ' hidden'));
      if (res.resume) lines.push(`  continue in Claude Code: ${res.resume.command}`);
      if (!res.dryRun) lines.push(`  undo with: retrace undo ${res.restore}`);
      return lines;
    });
  },
};

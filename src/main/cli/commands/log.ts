import { firstLine, short } from '../output';
import { str } from '../args';
import type { Command } from '../command';
import { visibleMessages } from '../../engine/workspaceEngine';
import { withLabels } from '../../usecases/label';

export const command: Command = {
  usage: 'log [--session ID] [--all]',
  options: { session: { type: 'string' }, all: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const engine = await ctx.engine();
    const state = await engine.session(str(ctx.values, 'session'));
    const all = ctx.values.all === true;
    // CLI.md's fields, plus `meta` where a message has one (tool, file, what an importer rebuilt) — additive.
    const messages = (await withLabels(engine, visibleMessages(state, all))).map((m) => ({
      id: m.id,
      ts: m.ts,
      role: m.role,
      text: m.text,
      hash: m.hash,
      hidden: m.hidden,
      ...(m.meta ? { meta: m.meta } : {}),
      ...(m.label !== undefined ? { label: m.label } : {}),
    }));
    // Checkpoints hooks could not record in this session (I10), as system notes in time order — additive.
    const missed = await engine.missed.recent({ session: state.header.id });
    const lines = messages.map((m) => ({
      ts: m.ts,
      line:
        `${m.hidden ? '(hidden) ' : ''}${m.ts}  ${m.role.padEnd(9)} ${m.id}${m.hash ? ` [${short(m.hash)}]` : ''}  ${m.label !== undefined ? `«${m.label}» ` : ''}${firstLine(m.text, 60)}` +
        (m.meta?.reconstructed
          ? `  (rebuilt: ${m.meta.reconstructed.files.length} file(s)${m.meta.reconstructed.missing.length ? `, could not rebuild: ${m.meta.reconstructed.missing.join(', ')}` : ''})`
          : ''),
    }));
    for (const m of missed)
      lines.push({
        ts: m.ts,
        line: `(missed) ${m.ts}  system    checkpoint not recorded${m.tool ? ` (${m.tool})` : ''}: ${m.reason}`,
      });
    lines.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
    ctx.out.result({ session: state.header.id, messages, ...(missed.length > 0 ? { missed } : {}) }, () => [
      `session ${state.header.id}: ${firstLine(state.header.title, 60)}`,
      ...lines.map((l) => l.line),
    ]);
  },
};

import { RetraceError } from '../../../shared/errors';
import { short, shownPath } from '../output';
import { str } from '../args';
import type { Command } from '../command';
import { search } from '../../usecases/search';

const USAGE = 'search QUERY [--session ID] [--limit N]';

export const command: Command = {
  usage: USAGE,
  options: { session: { type: 'string' }, limit: { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const query = ctx.positionals[0]!;
    if (query.trim() === '') throw new RetraceError('E_USAGE', `the query is empty; usage: retrace ${USAGE}`);
    const limitText = str(ctx.values, 'limit');
    const limit = limitText === undefined ? undefined : Number(limitText);
    if (limit !== undefined && (!/^\d+$/.test(limitText!) || limit < 1))
      throw new RetraceError('E_USAGE', `--limit takes a whole number of 1 or more, not ${JSON.stringify(limitText)}`);
    const session = str(ctx.values, 'session');
    const engine = await ctx.engine();
    const res = await search(engine, {
      query,
      ...(session !== undefined ? { session } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    // CLI.md's fields in its order, then the additive ones (hidden, label) and the count of all hits.
    const hits = res.hits.map((h) => ({
      session: h.session,
      message: h.message,
      ts: h.ts,
      role: h.role,
      snippet: h.snippet,
      hash: h.hash,
      paths: h.paths,
      ...(h.hidden ? { hidden: true } : {}),
      ...(h.label !== undefined ? { label: h.label } : {}),
    }));
    ctx.out.result({ hits, total: res.total }, () => [
      ...hits.map(
        (h) =>
          `${h.hidden ? '(hidden) ' : ''}${h.session}  ${h.message}${h.hash ? ` [${short(h.hash)}]` : ''}  ${h.role.padEnd(9)} ` +
          `${h.label ? `«${h.label}» ` : ''}${h.snippet}${h.paths.length > 0 ? `  (${h.paths.map(shownPath).join(', ')})` : ''}`,
      ),
      res.total > hits.length ? `… ${res.total - hits.length} more (--limit)` : `${res.total} found`,
    ]);
  },
};

/**
 * `retrace discover [--import]`: the sessions of every supported agent (Claude Code, Codex, Gemini, Cline) whose
 * working folder is this workspace, each with whether it is imported and whether it went on since. `--import`
 * imports the new ones and brings the changed ones up to date (each entry then says what was done: `action`).
 */
import { isAbsolute, resolve } from 'node:path';
import type { Command } from '../command';
import { discoverSessions, importDiscovered, type DiscoverImportResult } from '../../usecases/discover';

export const command: Command = {
  usage: 'discover [--import]',
  options: { import: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const ws = await ctx.workspace();
    // The shell's PWD keeps the symlinked spelling of the folder that an agent may have recorded.
    const pwd = process.env.PWD;
    const given = [resolve(ctx.cwd), ...(pwd && isAbsolute(pwd) ? [resolve(pwd, ctx.cwd)] : [])];
    const opts = { ws, given, env: process.env };
    if (ctx.values.import !== true) {
      const list = discoverSessions(opts);
      ctx.out.result(list, () =>
        list.length === 0
          ? `no agent sessions found for ${ws.root}`
          : list.map((s) => `${s.agent.padEnd(11)} ${s.id}  ${stateOf(s)}  ${s.title}`),
      );
      return 0;
    }
    const results = await importDiscovered({ ...opts, dataHome: ctx.dataHome() });
    ctx.out.result(results, () =>
      results.length === 0
        ? `no agent sessions found for ${ws.root}`
        : results.map((r) => `${r.agent.padEnd(11)} ${r.id}  ${describe(r)}  ${r.title}`),
    );
    // Every session failed to import: the operation failed (each one's error is in the list).
    return results.length > 0 && results.every((r) => r.action === 'failed') ? 1 : 0;
  },
};

function stateOf(s: { imported: boolean; changed: boolean }): string {
  return s.imported ? (s.changed ? 'changed ' : 'imported') : 'new     ';
}

function describe(r: DiscoverImportResult): string {
  if (r.action === 'failed') return `failed: ${r.error?.message ?? ''}`;
  if (r.action === 'unchanged') return 'up to date';
  return `${r.action} (${r.messages ?? 0} messages, ${r.checkpoints ?? 0} checkpoints)`;
}

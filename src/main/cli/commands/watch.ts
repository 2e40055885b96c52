/**
 * `retrace watch [DIR] [--session ID] [--quiet-ms N] [--max-wait-ms N]`: checkpoint into a `watch` session
 * whenever file activity in DIR settles (default: 1.5 s of quiet, at most 15 s into a constant trickle), the first
 * one preceded by a baseline of the folder as watching began (watcher.ts). Runs until SIGINT/SIGTERM. People get
 * one line per checkpoint; --json prints one document when it stops. The folder deleted or replaced ends it with
 * E_NOT_FOUND (watcher.ts).
 */
import { RetraceError } from '../../../shared/errors';
import { resolveWorkspace } from '../../engine/workspace';
import { DEFAULT_MAX_WAIT_MS, DEFAULT_QUIET_MS, startWatching } from '../../integrations/watch/watcher';
import { str } from '../args';
import type { Command } from '../command';
import { short } from '../output';

export const command: Command = {
  usage: 'watch [DIR] [--session ID] [--quiet-ms N] [--max-wait-ms N]',
  options: { session: { type: 'string' }, 'quiet-ms': { type: 'string' }, 'max-wait-ms': { type: 'string' } },
  positionals: { min: 0, max: 1 },
  async run(ctx) {
    const dir = ctx.positionals[0];
    const ws =
      dir !== undefined
        ? await resolveWorkspace(dir, { cwd: process.cwd(), dataHome: ctx.dataHome() })
        : await ctx.workspace();
    const quietMs = millis(ctx.values['quiet-ms'], '--quiet-ms', DEFAULT_QUIET_MS);
    const maxWaitMs = millis(ctx.values['max-wait-ms'], '--max-wait-ms', DEFAULT_MAX_WAIT_MS);
    const session = str(ctx.values, 'session');
    const hashes: string[] = [];
    let baseline: string | null = null;
    let ended: RetraceError | null = null;
    let stopWaiting = (): void => {};
    const watching = await startWatching({
      ws,
      ...(session !== undefined ? { session } : {}),
      quietMs,
      maxWaitMs: Math.max(maxWaitMs, quietMs),
      onCheckpoint: (c) => {
        hashes.push(c.hash);
        if (!ctx.json)
          process.stdout.write(`checkpoint ${short(c.hash)} in ${c.session}: ${c.paths.length} file(s) changed\n`);
      },
      onBaseline: (c) => {
        baseline = c.hash;
        if (!ctx.json)
          process.stdout.write(`baseline ${short(c.hash)} in ${c.session}: the folder as watching began\n`);
      },
      onError: (e) => ctx.out.note(`watch: ${e instanceof Error ? e.message : String(e)}`),
      onEnded: (e) => {
        ended = e;
        stopWaiting();
      },
    });
    ctx.out.note(`watching ${ws.root} (session ${watching.session}); Ctrl+C stops`);
    await new Promise<void>((resolve) => {
      stopWaiting = resolve;
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await watching.stop();
    // The folder went away: an error, with what was recorded before it, so that a script sees it stop.
    if (ended) {
      if (!ctx.json) ctx.out.note(`stopped; ${hashes.length} checkpoint(s) recorded`);
      throw ended;
    }
    if (ctx.json)
      ctx.out.result({ workspace: ws.root, session: watching.session, baseline, checkpoints: hashes }, () => '');
    else ctx.out.note(`stopped; ${hashes.length} checkpoint(s) recorded`);
    return 0;
  },
};

function millis(v: unknown, flag: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) < 50 || Number(v) > 3_600_000)
    throw new RetraceError('E_USAGE', `${flag}: a number of milliseconds (50 to 3600000), not ${String(v)}`);
  return Number(v);
}

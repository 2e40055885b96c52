/**
 * `retrace hook-server` (internal, not in --help): the resident process that answers `retrace hook` calls of
 * one data home. The hook client starts it; it exits when idle. See ../hookServer/server.ts.
 */
import type { Command } from '../command';

export const command: Command = {
  usage: 'hook-server   (internal; started by `retrace hook`)',
  options: {},
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const { runHookServer } = await import('../hookServer/server');
    return runHookServer(ctx.dataHome());
  },
};

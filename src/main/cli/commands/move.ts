/**
 * `retrace move FROM [TO]` → {"from", "to", "sessions": N}: the history of a project folder that was moved or
 * renamed (FROM, gone now) goes with it to TO (default: --cwd, or the current folder). See usecases/moveWorkspace.ts.
 */
import { moveWorkspace } from '../../usecases/moveWorkspace';
import type { Command } from '../command';

export const command: Command = {
  usage: 'move FROM [TO]',
  options: {},
  positionals: { min: 1, max: 2 },
  async run(ctx) {
    const [from, to] = ctx.positionals as [string, string | undefined];
    const res = await moveWorkspace(from, to ?? ctx.cwd, { cwd: process.cwd(), dataHome: ctx.dataHome() });
    ctx.out.result(res, () => [`moved the history of ${res.from} to ${res.to}: ${res.sessions} session(s)`]);
  },
};

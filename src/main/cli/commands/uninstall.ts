/**
 * `retrace uninstall claude-code|codex|gemini [--user | --project]` — take Retrace's hooks out of the agent's
 * settings again (what `retrace install` added), keeping every other setting and hook. Recorded sessions stay.
 */
import { resolve } from 'node:path';
import { agentAndScope } from '../args';
import type { Command } from '../command';

const usage = 'uninstall (claude-code | codex | gemini) [--user | --project]';

export const command: Command = {
  usage,
  options: { user: { type: 'boolean' }, project: { type: 'boolean' } },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const { agent, scope } = agentAndScope(ctx.positionals[0], ctx.values, usage);
    const opts = { cwd: resolve(ctx.cwd) };
    const res =
      agent === 'codex'
        ? (await import('../../integrations/codex/install')).uninstallCodexHooks(scope, opts)
        : agent === 'gemini'
          ? (await import('../../integrations/gemini/install')).uninstallGeminiHooks(scope, opts)
          : (await import('../../integrations/claude-code/install')).uninstallClaudeCodeHooks(scope, opts);
    ctx.out.result({ ...res, scope }, () =>
      res.removedFrom.length > 0
        ? res.removedFrom.map((f) => `removed Retrace's hooks from ${f}`)
        : [`no Retrace hooks in ${res.settings.join(' or ')}; nothing changed`],
    );
  },
};

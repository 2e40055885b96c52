/** `retrace import claude-code FILE.jsonl | cline TASK_DIR [--storage DIR] | codex ROLLOUT.jsonl`, each with [--cwd DIR] [--replace]. */
import { resolve } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { str } from '../args';
import type { Command } from '../command';
import type { ImportOutcome } from '../../integrations/importSession';

const usage =
  'import (claude-code FILE.jsonl | cline TASK_DIR [--storage DIR] | codex ROLLOUT.jsonl | gemini CHAT.json[l]) [--cwd DIR] [--replace]';

export const command: Command = {
  usage,
  options: { storage: { type: 'string' }, replace: { type: 'boolean' } },
  positionals: { min: 2, max: 2 },
  async run(ctx) {
    const [source, target] = ctx.positionals as [string, string];
    // --cwd names the workspace only when given: by default it comes from the transcript / task.
    const cwdGiven = typeof ctx.values.cwd === 'string' ? resolve(ctx.values.cwd) : undefined;
    const replace = ctx.values.replace === true;
    let res: ImportOutcome;
    if (source === 'claude-code') {
      if (ctx.values.storage !== undefined) throw new RetraceError('E_USAGE', '--storage is for `import cline`');
      const { importClaudeCode } = await import('../../integrations/claude-code/import');
      res = await importClaudeCode({
        file: resolve(target),
        ...(cwdGiven ? { cwd: cwdGiven } : {}),
        dataHome: ctx.dataHome(),
        replace,
      });
    } else if (source === 'cline') {
      const { importCline } = await import('../../integrations/cline/import');
      const storage = str(ctx.values, 'storage');
      res = await importCline({
        taskDir: resolve(target),
        ...(storage ? { storage: resolve(storage) } : {}),
        ...(cwdGiven ? { cwd: cwdGiven } : {}),
        dataHome: ctx.dataHome(),
        replace,
      });
    } else if (source === 'codex') {
      if (ctx.values.storage !== undefined) throw new RetraceError('E_USAGE', '--storage is for `import cline`');
      const { importCodex } = await import('../../integrations/codex/import');
      res = await importCodex({
        file: resolve(target),
        ...(cwdGiven ? { cwd: cwdGiven } : {}),
        dataHome: ctx.dataHome(),
        replace,
      });
    } else if (source === 'gemini') {
      if (ctx.values.storage !== undefined) throw new RetraceError('E_USAGE', '--storage is for `import cline`');
      const { importGemini } = await import('../../integrations/gemini/import');
      res = await importGemini({
        file: resolve(target),
        ...(cwdGiven ? { cwd: cwdGiven } : {}),
        dataHome: ctx.dataHome(),
        replace,
      });
    } else {
      throw new RetraceError('E_USAGE', `unknown import source ${JSON.stringify(source)}; usage: retrace ${usage}`);
    }
    if (!ctx.json) for (const w of res.warnings) ctx.out.note(w);
    ctx.out.result(res, () =>
      res.skipped
        ? `session ${res.session} is in this workspace already (${res.messages} messages, ${res.checkpoints} checkpoints); nothing changed (--replace imports it again)`
        : `imported ${source} session ${res.session} into ${res.workspace}: ${res.messages} messages (${res.hidden} hidden), ${res.checkpoints} checkpoints`,
    );
  },
};

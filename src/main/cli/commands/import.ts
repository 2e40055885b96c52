/** `retrace import claude-code FILE.jsonl | cline TASK_DIR [--storage DIR] | codex ROLLOUT.jsonl`, each with [--cwd DIR] [--replace]. */
import { resolve } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { str } from '../args';
import type { Command } from '../command';
import { describeFormat, detectFormat, type ImportFormat } from '../../integrations/detect';
import type { ImportOutcome } from '../../integrations/importSession';

const usage =
  'import (claude-code FILE.jsonl | cline TASK_DIR [--storage DIR] | codex ROLLOUT.jsonl | gemini CHAT.json[l] | auto PATH) [--cwd DIR] [--replace]';

export const command: Command = {
  usage,
  options: { storage: { type: 'string' }, replace: { type: 'boolean' } },
  positionals: { min: 2, max: 2 },
  async run(ctx) {
    const [asked, target] = ctx.positionals as [string, string];
    const source = chooseFormat(asked, resolve(target));
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
    res = { agent: source, ...res };
    if (!ctx.json) for (const w of res.warnings) ctx.out.note(w);
    ctx.out.result(res, () =>
      res.skipped
        ? `session ${res.session} is in this workspace already (${res.messages} messages, ${res.checkpoints} checkpoints); nothing changed (--replace imports it again)`
        : `imported ${source} session ${res.session} into ${res.workspace}: ${res.messages} messages (${res.hidden} hidden), ${res.checkpoints} checkpoints`,
    );
  },
};

const KNOWN: readonly string[] = ['claude-code', 'codex', 'gemini', 'cline'];

/**
 * The importer to run: `auto` picks it from the file's shape; a named one is refused, before anything is
 * written, when the file clearly belongs to another agent (one line saying what it looks like).
 */
function chooseFormat(asked: string, path: string): string {
  if (asked !== 'auto' && !KNOWN.includes(asked))
    throw new RetraceError('E_USAGE', `unknown import source ${JSON.stringify(asked)}; usage: retrace ${usage}`);
  const seen = detectFormat(path);
  if (asked === 'auto') {
    if (!seen.format)
      throw new RetraceError(
        'E_IMPORT',
        `${path}: not a transcript Retrace can import; it looks like ${seen.looksLike}`,
      );
    return seen.format;
  }
  if (seen.format && seen.format !== asked)
    throw new RetraceError(
      'E_IMPORT',
      `${path} looks like ${seen.looksLike}, not ${describeFormat(asked as ImportFormat)}; use \`retrace import ${seen.format}\` (or \`import auto\`)`,
    );
  return asked;
}

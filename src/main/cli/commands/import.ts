/**
 * `retrace import claude-code FILE.jsonl | cline TASK_DIR [--storage DIR] | codex ROLLOUT.jsonl | … | archive SESSION`,
 * each with [--cwd DIR] [--replace].
 */
import { dirname, resolve } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { str } from '../args';
import type { Command, CommandContext } from '../command';
import { unpackArchive } from '../../engine/storage/archive';
import { describeFormat, detectFormat, type ImportFormat } from '../../integrations/detect';
import type { ImportOutcome } from '../../integrations/importSession';

const usage =
  'import (claude-code FILE.jsonl | cline TASK_DIR [--storage DIR] | codex ROLLOUT.jsonl | gemini CHAT.json[l] | auto PATH | archive SESSION) [--cwd DIR] [--replace]';

export const command: Command = {
  usage,
  options: { storage: { type: 'string' }, replace: { type: 'boolean' } },
  positionals: { min: 2, max: 2 },
  async run(ctx) {
    const [asked, target] = ctx.positionals as [string, string];
    // --cwd names the workspace only when given: by default it comes from the transcript / task.
    const cwdGiven = typeof ctx.values.cwd === 'string' ? resolve(ctx.values.cwd) : undefined;
    const replace = ctx.values.replace === true;
    let res: ImportOutcome;
    let source: string;
    if (asked === 'archive') {
      res = await importArchived(ctx, target, str(ctx.values, 'storage'));
      source = res.agent!;
    } else {
      const chosen = chooseFormat(asked, resolve(target));
      source = chosen.format;
      res = await importAs(source, chosen.target, {
        cwd: cwdGiven,
        dataHome: ctx.dataHome(),
        replace,
        storage: str(ctx.values, 'storage'),
      });
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

interface ImportOpts {
  cwd: string | undefined;
  dataHome: string;
  replace: boolean;
  storage: string | undefined;
}

/** Run the importer of `source` (a format KNOWN names) on `target`. */
async function importAs(source: string, target: string, opts: ImportOpts): Promise<ImportOutcome> {
  if (source === 'claude-code') {
    if (opts.storage !== undefined) throw new RetraceError('E_USAGE', '--storage is for `import cline`');
    const { importClaudeCode } = await import('../../integrations/claude-code/import');
    return await importClaudeCode({
      file: target,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      dataHome: opts.dataHome,
      replace: opts.replace,
    });
  } else if (source === 'cline') {
    const { importCline } = await import('../../integrations/cline/import');
    const storage = opts.storage;
    return await importCline({
      taskDir: target,
      ...(storage ? { storage: resolve(storage) } : {}),
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      dataHome: opts.dataHome,
      replace: opts.replace,
    });
  } else if (source === 'codex') {
    if (opts.storage !== undefined) throw new RetraceError('E_USAGE', '--storage is for `import cline`');
    const { importCodex } = await import('../../integrations/codex/import');
    return await importCodex({
      file: target,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      dataHome: opts.dataHome,
      replace: opts.replace,
    });
  } else if (source === 'gemini') {
    if (opts.storage !== undefined) throw new RetraceError('E_USAGE', '--storage is for `import cline`');
    const { importGemini } = await import('../../integrations/gemini/import');
    return await importGemini({
      file: target,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      dataHome: opts.dataHome,
      replace: opts.replace,
    });
  } else {
    throw new RetraceError('E_USAGE', `unknown import source ${JSON.stringify(source)}; usage: retrace ${usage}`);
  }
}

/**
 * `retrace import archive SESSION`: the session again from the compressed copy its import kept (for when the
 * agent has deleted the transcript since), over the session as it is, into the workspace of --cwd.
 */
async function importArchived(
  ctx: CommandContext,
  session: string,
  storage: string | undefined,
): Promise<ImportOutcome> {
  const ws = await ctx.workspace();
  const { file, cleanup } = await unpackArchive(ws, session);
  try {
    // A Cline copy is its task's ui_messages.json: the importer reads the task folder.
    const seen = detectFormat(file).format ?? detectFormat(dirname(file)).format;
    if (!seen)
      throw new RetraceError('E_IMPORT', `the archived transcript of ${session} is in no format Retrace imports`);
    const target = seen === 'cline' ? dirname(file) : file;
    const res = await importAs(seen, target, { cwd: ws.root, dataHome: ctx.dataHome(), replace: true, storage });
    return { agent: seen, ...res };
  } finally {
    await cleanup();
  }
}

const KNOWN: readonly string[] = ['claude-code', 'codex', 'gemini', 'cline'];

/**
 * The importer to run: `auto` picks it from the file's shape; a named one is refused, before anything is
 * written, when the file clearly belongs to another agent (one line saying what it looks like).
 */
function chooseFormat(asked: string, path: string): { format: string; target: string } {
  if (asked !== 'auto' && !KNOWN.includes(asked))
    throw new RetraceError('E_USAGE', `unknown import source ${JSON.stringify(asked)}; usage: retrace ${usage}`);
  const seen = detectFormat(path);
  // A file of a Cline task stands for its folder (`import cline …/ui_messages.json` too).
  const target = seen.target ?? path;
  if (seen.special) throw new RetraceError('E_IMPORT', `${path} is ${seen.looksLike}: give the transcript's path`);
  if (asked === 'auto') {
    if (!seen.format)
      throw new RetraceError(
        'E_IMPORT',
        `${path}: not a transcript Retrace can import; it looks like ${seen.looksLike}`,
      );
    return { format: seen.format, target };
  }
  if (seen.format && seen.format !== asked)
    throw new RetraceError(
      'E_IMPORT',
      `${path} looks like ${seen.looksLike}, not ${describeFormat(asked as ImportFormat)}; use \`retrace import ${seen.format}\` (or \`import auto\`)`,
    );
  return { format: asked, target };
}

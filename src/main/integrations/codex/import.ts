/**
 * `retrace import codex ROLLOUT.jsonl`: a Codex CLI rollout becomes a Retrace session of its workspace (the
 * rollout's `cwd`, or --cwd), id = the Codex session id. Prompts, replies, reasoning summaries, shell commands
 * and other tool calls become messages; each applied patch becomes a checkpoint rebuilt from the patch itself
 * (rebuild.ts), and each prompt a checkpoint of the state the person saw. Turns Codex rolled back
 * (`thread_rolled_back`) are hidden as rewound. Shell commands may change files too: their effects cannot be
 * rebuilt from the rollout, and the import says so.
 */
import { basename } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { MessageMeta } from '../../../shared/model';
import { isHardExcluded } from '../../engine/excludes';
import { isValidSessionId } from '../../engine/sessions/ids';
import { WorkspaceEngine } from '../../engine/workspaceEngine';
import {
  alreadyImported,
  removeSession,
  writeImportedSession,
  type ImportMessage,
  type ImportOutcome,
} from '../importSession';
import { argsText, toolCallDetail } from '../details';
import { importWorkspace, readWorkspaceFile, toolText } from '../importWorkspace';
import { StepTrees, type FileState } from '../stepTrees';
import { rebuildPatches, type PatchStep } from './rebuild';
import { readRollout, type RolloutItem } from './rollout';
import { patchPaths, patchSummary } from './hook';

export interface CodexImportOptions {
  file: string;
  /** The workspace; default: the rollout's cwd. */
  cwd?: string;
  dataHome: string;
  replace?: boolean;
}

export interface CodexImportResult extends ImportOutcome {
  agent: 'codex';
  reconstructed: { files: string[]; missing: { path: string; reason: string }[] };
  patches: { applied: number; rebuilt: number; notApplied: number };
}

export async function importCodex(opts: CodexImportOptions): Promise<CodexImportResult> {
  const rollout = await readRollout(opts.file).catch((e: unknown) => {
    throw new RetraceError('E_IMPORT', `cannot read ${opts.file}: ${(e as Error).message}`);
  });
  if (rollout.id === null && !rollout.items.some((i) => i.kind === 'prompt'))
    throw new RetraceError(
      'E_IMPORT',
      `${opts.file} does not look like a Codex rollout (no session_meta line, no prompt)`,
    );
  const session = rollout.id ?? basename(opts.file).replace(/\.jsonl$/, '');
  if (!isValidSessionId(session))
    throw new RetraceError('E_IMPORT', `the rollout's session id is not usable: ${session}`);
  const ws = await importWorkspace(opts.cwd, rollout.cwd, opts.dataHome, 'rollout');
  const engine = new WorkspaceEngine(ws, { actor: 'retrace import' });
  const warnings = [...rollout.warnings];

  const patchItems = rollout.items.flatMap((it, i) =>
    it.kind === 'patch' && it.applied === true ? [{ item: i, input: it.input }] : [],
  );
  const rebuild = rebuildPatches(patchItems, {
    cwd: rollout.cwd,
    root: ws.root,
    readWorkspace: (rel) => readWorkspaceFile(ws.root, rel),
  });
  const touched = rebuild.touched.filter((p) => !isHardExcluded(p));
  const stepAt = new Map<number, PatchStep>(rebuild.steps.map((s) => [s.item, s]));
  const unreadableAt = new Map(rebuild.unreadable.map((u) => [u.item, u.reason]));
  const missing: CodexImportResult['reconstructed']['missing'] = [];
  const notApplied = rollout.items.filter((i) => i.kind === 'patch' && i.applied !== true).length;
  const unknownResult = rollout.items.filter((i) => i.kind === 'patch' && i.applied === null).length;
  if (unknownResult > 0) warnings.push(`${unknownResult} patch(es) have no recorded result; taken as not applied`);
  const shells = rollout.items.filter((i) => i.kind === 'shell').length;
  if (shells > 0)
    warnings.push(`${shells} shell command(s) ran; files they changed are not rebuilt (only patches are)`);

  return engine.write(async () => {
    if (engine.sessions.exists(session)) {
      if (!opts.replace)
        return {
          ...(await alreadyImported(engine, session)),
          agent: 'codex' as const,
          patches: { applied: patchItems.length, rebuilt: 0, notApplied },
        };
      await removeSession(engine, session);
    }
    const shadow = await engine.shadow();
    const trees = touched.length > 0 ? await StepTrees.open(shadow, touched) : null;
    const messages: ImportMessage[] = [];
    const files = new Set<string>();
    let rebuiltSteps = 0;
    try {
      let states: Map<string, FileState> = withoutExcluded(rebuild.initial);
      for (const [i, it] of rollout.items.entries()) {
        if (it.kind === 'rollback') {
          hideLastTurns(messages, it.turns);
          continue;
        }
        const out = toMessage(it);
        const step = stepAt.get(i);
        const unreadable = unreadableAt.get(i);
        if (it.kind === 'patch' && it.applied === true) {
          const stepMissing = step?.missing ?? [{ path: firstPath(it.input), reason: unreadable ?? 'not rebuilt' }];
          missing.push(...stepMissing);
          if (step) {
            states = withoutExcluded(step.states);
            step.rebuilt.forEach((p) => files.add(p));
            if (step.rebuilt.length > 0) rebuiltSteps++;
          }
          out.meta = {
            ...out.meta,
            reconstructed: { files: step?.rebuilt ?? [], missing: stepMissing.map((m) => m.path) },
          };
          if (trees && step) out.checkpoint = { tree: await trees.tree(states) };
        }
        if (trees && it.kind === 'prompt') out.checkpoint = { tree: await trees.tree(states) };
        messages.push(out);
      }
      await trees?.flush();
    } finally {
      trees?.dispose();
    }
    for (const m of missing) warnings.push(`patch of ${m.path} not rebuilt: ${m.reason}`);
    const title = rollout.items.find((i): i is Extract<RolloutItem, { kind: 'prompt' }> => i.kind === 'prompt');
    const written = await writeImportedSession(engine, {
      id: session,
      ...(title ? { title: title.text.split('\n')[0]!.slice(0, 120) } : {}),
      source: 'codex',
      messages,
      importer: 'codex',
      origin: { kind: 'codex', transcript: opts.file, sessionId: session, cwd: ws.root },
    });
    return {
      ...written,
      agent: 'codex' as const,
      workspace: ws.root,
      skipped: false,
      reconstructed: { files: [...files].sort(), missing },
      patches: { applied: patchItems.length, rebuilt: rebuiltSteps, notApplied },
      warnings,
    };
  });
}

function toMessage(it: Exclude<RolloutItem, { kind: 'rollback' }>): ImportMessage {
  const meta: MessageMeta = {};
  if (it.model) meta.model = it.model;
  if (it.usage) meta.usage = it.usage;
  const withMeta = (m: ImportMessage): ImportMessage => (Object.keys(meta).length > 0 ? { ...m, meta } : m);
  switch (it.kind) {
    case 'prompt':
      return { role: 'user', text: it.text, ts: it.ts };
    case 'reply':
      return withMeta({ role: 'assistant', text: it.text, ts: it.ts });
    case 'reasoning':
      meta.reasoning = true;
      return withMeta({ role: 'assistant', text: it.text, ts: it.ts });
    case 'note':
      return { role: 'system', text: it.text, ts: it.ts };
    case 'shell':
      meta.tool = 'shell';
      meta.command = it.command;
      meta.toolCalls = [
        toolCallDetail({ id: it.callId, name: 'shell', input: it.command, output: it.output, exitCode: it.exitCode }),
      ];
      return { role: 'tool', text: toolText(`$ ${it.command}`, it.output), ts: it.ts, meta };
    case 'patch':
      meta.tool = 'apply_patch';
      meta.file = firstPath(it.input);
      meta.sourceId = it.callId;
      meta.toolCalls = [
        toolCallDetail({
          id: it.callId,
          name: 'apply_patch',
          patch: it.input.trim(),
          output: it.output,
          isError: it.applied === false,
        }),
      ];
      return {
        role: 'tool',
        text: toolText(`${patchSummary(it.input)}\n${it.input.trim()}`, it.applied === false ? it.output : null),
        ts: it.ts,
        meta,
      };
    case 'tool':
      meta.tool = it.name;
      meta.toolCalls = [
        toolCallDetail({ id: it.callId, name: it.name, input: prettyArgs(it.input), output: it.output }),
      ];
      return { role: 'tool', text: toolText(`${it.name} ${it.input}`, it.output), ts: it.ts, meta };
  }
}

/** `thread_rolled_back{num_turns}`: the last N turns (a prompt and all after it) were taken back. */
function hideLastTurns(messages: ImportMessage[], turns: number): void {
  let seen = 0;
  for (let i = messages.length - 1; i >= 0 && seen < turns; i--) {
    if (messages[i]!.hidden) continue;
    if (messages[i]!.role === 'user') {
      seen++;
      for (let k = i; k < messages.length; k++) messages[k]!.hidden = true;
    }
  }
}

function withoutExcluded(states: Map<string, FileState>): Map<string, FileState> {
  return new Map([...states].filter(([p]) => !isHardExcluded(p)));
}

/** Function-call arguments are a JSON string: indented when they parse, as written when not. */
function prettyArgs(raw: string): string | undefined {
  try {
    return argsText(JSON.parse(raw));
  } catch {
    return raw;
  }
}

/** The first file a patch names (patchPaths, as the hook reads it), or '(patch)' when it names none. */
function firstPath(patch: string): string {
  return patchPaths(patch)[0] ?? '(patch)';
}

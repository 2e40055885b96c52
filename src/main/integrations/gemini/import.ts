/**
 * `retrace import gemini CHAT.json|CHAT.jsonl`: a Gemini CLI chat becomes a Retrace session of its workspace
 * (--cwd; a chat names its project only by a hash of the root's path, which is checked). Edit tools record the
 * whole file before and after (`resultDisplay.originalContent` / `newContent`), so every successful edit is
 * rebuilt exactly as a checkpoint; each prompt gets a checkpoint of the state the person saw. Messages a
 * `$rewindTo` took back are hidden as rewound.
 */
import { createHash } from 'node:crypto';
import { basename, isAbsolute, relative } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { MessageMeta, ToolCallDetail } from '../../../shared/model';
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
import { argsText, tokenUsage, toolCallDetail } from '../details';
import { importWorkspace, toolText } from '../importWorkspace';
import { StepTrees, type FileState } from '../stepTrees';
import { readGeminiChat, type GeminiMessage, type GeminiToolCall } from './chat';
import { obj } from '../hooks/payload';
import { geminiToolLine } from './hook';

export interface GeminiImportOptions {
  file: string;
  cwd?: string;
  dataHome: string;
  replace?: boolean;
}

export interface GeminiImportResult extends ImportOutcome {
  agent: 'gemini';
  reconstructed: { files: string[]; missing: { path: string; reason: string }[] };
  edits: { applied: number; rebuilt: number };
}

/** One successful file edit: the file before and after, from the tool's own display record. */
interface Edit {
  path: string | null;
  rawPath: string;
  before: FileState;
  after: string;
}

export async function importGemini(opts: GeminiImportOptions): Promise<GeminiImportResult> {
  const chat = await readGeminiChat(opts.file).catch((e: unknown) => {
    throw new RetraceError('E_IMPORT', `${opts.file} is not a Gemini CLI chat: ${(e as Error).message}`);
  });
  if (chat.messages.length === 0 && chat.sessionId === null)
    throw new RetraceError('E_IMPORT', `${opts.file} is not a Gemini CLI chat (no sessionId, no messages)`);
  const session = chat.sessionId ?? basename(opts.file).replace(/\.jsonl?$/, '');
  if (!isValidSessionId(session)) throw new RetraceError('E_IMPORT', `the chat's session id is not usable: ${session}`);
  if (!opts.cwd)
    throw new RetraceError('E_IMPORT', 'a Gemini chat names its folder only by a hash: give the workspace with --cwd');
  const ws = await importWorkspace(opts.cwd, null, opts.dataHome, 'chat');
  const warnings = [...chat.warnings];
  if (chat.projectHash && chat.projectHash !== sha256(ws.root))
    warnings.push(`this chat was recorded for another folder (its project hash is not that of ${ws.root})`);
  const engine = new WorkspaceEngine(ws, { actor: 'retrace import' });

  const editsOf = new Map<GeminiToolCall, Edit>();
  for (const m of chat.messages)
    for (const t of m.toolCalls) {
      const e = fileEdit(t, ws.root);
      if (e) editsOf.set(t, e);
    }
  const touched = [
    ...new Set([...editsOf.values()].flatMap((e) => (e.path && !isHardExcluded(e.path) ? [e.path] : []))),
  ];
  // Each path's state before the session touched it: the first edit's "before".
  const states = new Map<string, FileState>();
  for (const e of editsOf.values())
    if (e.path && !states.has(e.path) && touched.includes(e.path)) states.set(e.path, e.before);

  return engine.write(async () => {
    if (engine.sessions.exists(session)) {
      if (!opts.replace)
        return {
          ...(await alreadyImported(engine, session)),
          agent: 'gemini' as const,
          edits: { applied: editsOf.size, rebuilt: 0 },
        };
      await removeSession(engine, session);
    }
    const trees = touched.length > 0 ? await StepTrees.open(await engine.shadow(), touched) : null;
    const messages: ImportMessage[] = [];
    const missing: GeminiImportResult['reconstructed']['missing'] = [];
    const files = new Set<string>();
    try {
      for (const m of chat.messages) {
        const first = messages.length;
        const head = headMessage(m);
        if (head) {
          if (trees && head.role === 'user') head.checkpoint = { tree: await trees.tree(states) };
          messages.push(head);
        }
        if (m.thoughts.length > 0)
          messages.push({
            role: 'assistant',
            text: m.thoughts.join('\n\n'),
            ts: m.ts,
            meta: { reasoning: true },
            ...hidden(m),
          });
        for (const t of m.toolCalls) {
          const meta: MessageMeta = { tool: t.name, sourceId: t.id, toolCalls: [callDetail(t)] };
          const out: ImportMessage = {
            role: 'tool',
            text: toolText(geminiToolLine(t.name, obj(t.args) ?? {}, ws.root), displayText(t)),
            ts: m.ts,
            meta,
            ...hidden(m),
          };
          const e = editsOf.get(t);
          if (e) {
            meta.file = e.path ?? e.rawPath;
            if (e.path && touched.includes(e.path)) {
              states.set(e.path, e.after);
              files.add(e.path);
              meta.reconstructed = { files: [e.path], missing: [] };
              if (trees) out.checkpoint = { tree: await trees.tree(states) };
            } else {
              const reason = e.path ? 'excluded from checkpoints' : 'outside the workspace';
              missing.push({ path: e.path ?? e.rawPath, reason });
              meta.reconstructed = { files: [], missing: [e.path ?? e.rawPath] };
            }
          }
          messages.push(out);
        }
        // The model and tokens of the reply go on the first message it became (its text, thoughts or first call).
        if (messages.length > first) Object.assign((messages[first]!.meta ??= {}), modelDetails(m));
      }
      await trees?.flush();
    } finally {
      trees?.dispose();
    }
    for (const m of missing) warnings.push(`edit of ${m.path} not rebuilt: ${m.reason}`);
    const first = chat.messages.find((m) => m.type === 'user' && m.content.trim() !== '');
    const written = await writeImportedSession(engine, {
      id: session,
      ...(first ? { title: first.content.split('\n')[0]!.slice(0, 120) } : {}),
      source: 'gemini',
      messages,
      importer: 'gemini',
      origin: { kind: 'gemini', transcript: opts.file, sessionId: session, cwd: ws.root },
      ...(chat.startTime ? { createdAt: chat.startTime } : {}),
    });
    return {
      ...written,
      agent: 'gemini' as const,
      workspace: ws.root,
      skipped: false,
      reconstructed: { files: [...files].sort(), missing },
      edits: {
        applied: editsOf.size,
        rebuilt: [...editsOf.values()].filter((e) => e.path && touched.includes(e.path)).length,
      },
      warnings,
    };
  });
}

function headMessage(m: GeminiMessage): ImportMessage | null {
  const role = m.type === 'user' ? 'user' : m.type === 'gemini' ? 'assistant' : 'system';
  if (m.content.trim() === '' && role !== 'user') return null; // a reply that is only tool calls
  const meta: MessageMeta = { sourceId: m.id };
  const text = role === 'system' && m.type !== 'info' ? `${m.type}: ${m.content}` : m.content;
  return { role, text, ts: m.ts, meta, ...hidden(m) };
}

function modelDetails(m: GeminiMessage): MessageMeta {
  const out: MessageMeta = {};
  if (m.model) out.model = m.model;
  const t = m.tokens;
  const usage =
    t &&
    tokenUsage({
      input: t.input,
      output: t.output,
      cacheRead: t.cached,
      cacheWrite: undefined,
      reasoning: t.thoughts,
      total: t.total,
    });
  if (usage) out.usage = usage;
  return out;
}

/** A call with its arguments (a shell call's command as it is), its answer, and an edit's diff. */
function callDetail(t: GeminiToolCall): ToolCallDetail {
  const args = (typeof t.args === 'object' && t.args !== null ? t.args : {}) as Record<string, unknown>;
  const d = t.resultDisplay;
  const fileDiff = typeof d === 'object' && d !== null ? (d as { fileDiff?: unknown }).fileDiff : undefined;
  return toolCallDetail({
    id: t.id,
    name: t.name,
    input: t.name === 'run_shell_command' && typeof args.command === 'string' ? args.command : argsText(t.args),
    patch: typeof fileDiff === 'string' ? fileDiff : undefined,
    output: responseText(t.result) ?? (typeof d === 'string' ? d : undefined),
    isError: t.status === 'error',
  });
}

/** The text of a call's `functionResponse` (its output, or its error), when it has one. */
function responseText(result: unknown): string | undefined {
  const parts = Array.isArray(result) ? result : [result];
  const texts: string[] = [];
  for (const p of parts) {
    const response = (p as { functionResponse?: { response?: Record<string, unknown> } } | null)?.functionResponse
      ?.response;
    const text = response?.output ?? response?.error;
    if (typeof text === 'string') texts.push(text);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

function hidden(m: GeminiMessage): { hidden?: true } {
  return m.rewound ? { hidden: true } : {};
}

/** A successful edit tool call's file before and after, when its display record carries them. */
function fileEdit(t: GeminiToolCall, root: string): Edit | null {
  const d = t.resultDisplay;
  if (t.status !== 'success' || typeof d !== 'object' || d === null) return null;
  const r = d as Record<string, unknown>;
  if (typeof r.filePath !== 'string' || typeof r.newContent !== 'string') return null;
  const isNew = r.isNewFile === true || r.originalContent === null || r.originalContent === undefined;
  return {
    rawPath: r.filePath,
    path: workspacePath(r.filePath, root),
    before: isNew ? null : String(r.originalContent),
    after: r.newContent,
  };
}

function workspacePath(p: string, root: string): string | null {
  const rel = (isAbsolute(p) ? relative(root, p) : p).replace(/\\/g, '/');
  return rel === '' || rel.startsWith('../') || rel === '..' || isAbsolute(rel) ? null : rel;
}

function displayText(t: GeminiToolCall): string | null {
  const d = t.resultDisplay;
  if (typeof d === 'string') return d;
  if (typeof d === 'object' && d !== null && typeof (d as { fileDiff?: unknown }).fileDiff === 'string')
    return (d as { fileDiff: string }).fileDiff;
  return null;
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

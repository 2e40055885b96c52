/**
 * A fake home where agents keep their sessions, each agent's folder moved by its own variable (as
 * `retrace discover` reads them), with synthetic sessions for one folder written in the shapes FORMATS.md gives.
 * For the app's "Found sessions" tests (service and e2e); never a copy of a real transcript.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type AgentEnv = Record<string, string>;

/** Every agent's home under `base` (Cline's editors under XDG_CONFIG_HOME, so the real ones are never read). */
export function agentHomeEnv(base: string): AgentEnv {
  return {
    HOME: base,
    CLAUDE_CONFIG_DIR: join(base, 'claude-config'),
    CODEX_HOME: join(base, 'codex-home'),
    GEMINI_CLI_HOME: join(base, 'gemini-home'),
    XDG_CONFIG_HOME: join(base, 'config'),
  };
}

const iso = (t: number) => new Date(t).toISOString();

/** A Claude Code conversation of `turns` prompts and replies; returns the transcript's path. */
export function writeClaudeSession(
  env: AgentEnv,
  ws: string,
  sessionId: string,
  prompt: string,
  turns = 1,
  start = Date.parse('2025-11-20T10:00:00Z'),
): string {
  const dir = join(env.CLAUDE_CONFIG_DIR!, 'projects', ws.replace(/[^a-zA-Z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const base = { isSidechain: false, userType: 'external', cwd: ws, sessionId, version: '2.0.55' };
  const lines: string[] = [];
  let t = start;
  for (let i = 0; i < turns; i++) {
    const u = `${sessionId.slice(0, 8)}-u${i}`;
    const a = `${sessionId.slice(0, 8)}-a${i}`;
    const parentUuid = i === 0 ? null : `${sessionId.slice(0, 8)}-a${i - 1}`;
    lines.push(
      JSON.stringify({
        ...base,
        parentUuid,
        type: 'user',
        uuid: u,
        timestamp: iso((t += 1000)),
        message: { role: 'user', content: i === 0 ? prompt : `${prompt} (${i + 1})` },
      }),
      JSON.stringify({
        ...base,
        parentUuid: u,
        type: 'assistant',
        uuid: a,
        timestamp: iso((t += 1000)),
        message: {
          id: `msg_${a}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [{ type: 'text', text: `Done: ${prompt}` }],
        },
      }),
    );
  }
  const file = join(dir, `${sessionId}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/**
 * A Gemini CLI chat (legacy single-object form) with a prompt and one successful file write whose display
 * record carries the file before and after, so the import rebuilds it as a checkpoint.
 */
export function writeGeminiChat(
  env: AgentEnv,
  ws: string,
  sessionId: string,
  prompt: string,
  edit: { path: string; before: string | null; after: string },
  start = Date.parse('2025-11-21T09:00:00Z'),
): string {
  const hash = createHash('sha256').update(ws).digest('hex');
  const dir = join(env.GEMINI_CLI_HOME!, '.gemini', 'tmp', hash, 'chats');
  mkdirSync(dir, { recursive: true });
  let t = start;
  const file = join(dir, `session-${iso(start).slice(0, 16).replace(/:/g, '-')}-${sessionId.slice(0, 8)}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      sessionId,
      projectHash: hash,
      startTime: iso(t),
      lastUpdated: iso(t + 3000),
      messages: [
        { id: 'm1', timestamp: iso((t += 1000)), type: 'user', content: prompt },
        {
          id: 'm2',
          timestamp: iso((t += 1000)),
          type: 'gemini',
          content: `Writing ${edit.path}.`,
          toolCalls: [
            {
              id: 'write_file-1',
              name: 'write_file',
              args: { file_path: join(ws, edit.path), content: edit.after },
              status: 'success',
              timestamp: iso(t),
              resultDisplay: {
                fileName: edit.path,
                filePath: join(ws, edit.path),
                originalContent: edit.before,
                newContent: edit.after,
                isNewFile: edit.before === null,
              },
            },
          ],
          thoughts: [],
          model: 'gemini-2.5-pro',
        },
        { id: 'm3', timestamp: iso((t += 1000)), type: 'gemini', content: 'Done.', model: 'gemini-2.5-pro' },
      ],
    }),
  );
  return file;
}

/** A file where Gemini CLI keeps this folder's chats that is not a chat (no messages array): its import fails. */
export function writeBrokenGeminiChat(env: AgentEnv, ws: string, sessionId: string): string {
  const hash = createHash('sha256').update(ws).digest('hex');
  const dir = join(env.GEMINI_CLI_HOME!, '.gemini', 'tmp', hash, 'chats');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `session-2025-11-22T08-00-${sessionId.slice(0, 8)}.json`);
  writeFileSync(file, JSON.stringify({ sessionId, projectHash: hash, messages: 'not a list' }));
  return file;
}

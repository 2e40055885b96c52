import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { findClaudeCodeSessions } from './claudeCode';
import { findCodexSessions } from './codex';
import { findGeminiSessions } from './gemini';
import { isPlace, readFirstLine } from './found';

afterAll(cleanupTempDirs);

const line = (cwd: string, sessionId: string) =>
  JSON.stringify({
    type: 'user',
    uuid: 'u1',
    parentUuid: null,
    cwd,
    sessionId,
    message: { role: 'user', content: 'go' },
  });

describe('discover locators', () => {
  it('Claude Code: a folder name over 200 characters is matched by its cut prefix whatever the hash suffix', () => {
    const base = tempDir();
    const ws = join(base, 'x'.repeat(120), 'y'.repeat(120));
    mkdirSync(ws, { recursive: true });
    const config = join(base, 'claude');
    const encoded = ws.replace(/[^a-zA-Z0-9]/g, '-');
    expect(encoded.length).toBeGreaterThan(200);
    const dir = join(config, 'projects', `${encoded.slice(0, 200)}-someotherhash`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 's1.jsonl'), line(ws, 'sess-1') + '\n');
    writeFileSync(join(dir, 'agent-1234abcd.jsonl'), line(ws, 'sess-1') + '\n'); // a sub-agent: not a session
    const found = findClaudeCodeSessions(
      { root: ws, caseInsensitive: false, spellings: [] },
      { CLAUDE_CONFIG_DIR: config },
    );
    expect(found.map((f) => [f.id, f.title])).toEqual([['sess-1', 'go']]);
  });

  it('case-insensitive file systems compare folders case-folded; others do not', () => {
    const ws = tempDir();
    const upper = ws.toUpperCase();
    expect(isPlace({ root: ws, caseInsensitive: true, spellings: [] }, upper)).toBe(true);
    expect(isPlace({ root: ws, caseInsensitive: false, spellings: [] }, upper)).toBe(upper === ws);
    expect(isPlace({ root: ws, caseInsensitive: false, spellings: [] }, ws + '/')).toBe(true);
  });

  it('Codex: reads the whole first line even when session_meta is long, and skips files that are not rollouts', () => {
    const base = tempDir();
    const ws = tempDir();
    const day = join(base, 'sessions', '2025', '01', '02');
    mkdirSync(day, { recursive: true });
    const meta = { type: 'session_meta', payload: { id: 'r-1', cwd: ws, instructions: 'i'.repeat(300_000) } };
    writeFileSync(join(day, 'rollout-1.jsonl'), JSON.stringify(meta) + '\n');
    writeFileSync(join(day, 'notes.jsonl'), JSON.stringify(meta) + '\n');
    expect(readFirstLine(join(day, 'rollout-1.jsonl')).length).toBe(JSON.stringify(meta).length);
    const found = findCodexSessions({ root: ws, caseInsensitive: false, spellings: [] }, { CODEX_HOME: base });
    expect(found.map((f) => f.id)).toEqual(['r-1']);
  });

  it('Gemini: newer slug folders are found by their .project_root marker or projects.json, never by name alone', () => {
    const home = tempDir();
    const ws = tempDir();
    const other = tempDir();
    const tmp = join(home, '.gemini', 'tmp');
    const chat = (dir: string, id: string) => {
      mkdirSync(join(tmp, dir, 'chats'), { recursive: true });
      writeFileSync(join(tmp, dir, 'chats', `session-${id}.json`), JSON.stringify({ sessionId: id, messages: [] }));
    };
    chat('app', 'by-marker');
    writeFileSync(join(tmp, 'app', '.project_root'), ws + '\n');
    chat('app-1', 'other-folder');
    writeFileSync(join(tmp, 'app-1', '.project_root'), other);
    chat('app-2', 'by-registry');
    writeFileSync(join(home, '.gemini', 'projects.json'), JSON.stringify({ projects: { [ws]: 'app-2' } }));
    chat('app-3', 'unclaimed');
    const found = findGeminiSessions({ root: ws, caseInsensitive: false, spellings: [] }, { GEMINI_CLI_HOME: home });
    expect(found.map((f) => f.id).sort()).toEqual(['by-marker', 'by-registry']);
  });
});

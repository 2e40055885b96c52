/** The app's path: the service's restore of a Claude Code session's conversation answers with `resume`. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createService } from '../../src/main/service';
import { importClaudeCode } from '../../src/main/integrations/claude-code/import';
import { cleanupTempDirs, fileSha, makeWorkspace, tempDir, tempHome } from '../helpers';
import { rewindTranscript } from './claudeTranscript';

afterAll(cleanupTempDirs);

describe('service restore of a Claude Code session', () => {
  it('fills RestoreResult.resume for conversation and both, not for code', async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'a.txt': 'three\n', 'b.txt': 'bee\n' });
    const config = tempDir('retrace-claude-');
    const project = join(config, 'projects', 'p');
    mkdirSync(project, { recursive: true });
    const file = join(project, '11111111-2222-4333-8444-555555555555.jsonl');
    writeFileSync(file, rewindTranscript(ws));
    const sha = fileSha(file);
    await importClaudeCode({ file, dataHome: home, env: { CLAUDE_CONFIG_DIR: config } });
    // The service forks with the process's environment: keep any file-history copy inside the temp config.
    const saved = process.env.CLAUDE_CONFIG_DIR;
    process.env.CLAUDE_CONFIG_DIR = config;
    onTestFinished(() => {
      if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
      else process.env.CLAUDE_CONFIG_DIR = saved;
    });

    const service = createService({ host: 'serve', dataHome: home });
    const opened = await service.dispatch('openWorkspace', { path: ws });
    if (!opened.ok) throw new Error(opened.error.message);
    const workspace = opened.value.id;
    const page = await service.dispatch('timeline', { workspace, session: '11111111-2222-4333-8444-555555555555' });
    if (!page.ok) throw new Error(page.error.message);
    const target = page.value.messages.find((m) => m.text.startsWith('Write a.txt'))!;

    const code = await service.dispatch('restore', { workspace, target: target.id, mode: 'code' });
    expect(code.ok && code.value.resume).toBeUndefined();
    const conv = await service.dispatch('restore', { workspace, target: target.id, mode: 'conversation' });
    if (!conv.ok) throw new Error(conv.error.message);
    expect(conv.value.resume?.command).toMatch(/^claude --resume [0-9a-f-]{36}$/);
    const lines = readFileSync(conv.value.resume!.transcript, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { uuid: string }).uuid)).toEqual(['u1', 'a1', 'a1b', 'r1']);
    const both = await service.dispatch('restore', { workspace, target: target.id, mode: 'both' });
    expect(both.ok && both.value.resume?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fileSha(file)).toBe(sha);
  });
});

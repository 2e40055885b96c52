/**
 * Blame of a file an imported real Claude Code session edited (../shared/fixtures, read in place): after the code
 * is restored to the session's last checkpoint, every line the session changed names its step as the agent's
 * (claude-code, a tool call), and the lines that were there before stay baseline.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, makeWorkspace, tempDir, tempHome } from '../helpers';
import { F2, F2_AGENT, FIXTURES, HAVE_FIXTURES, NO_FIXTURES } from './fixtures';

afterAll(cleanupTempDirs);

interface Line {
  line: number;
  hash: string | null;
  message: string | null;
  session: string | null;
  agent: string | null;
  role: string | null;
  origin: string;
}

describe('blame of an imported Claude Code session', () => {
  it.skipIf(!HAVE_FIXTURES)(`names the agent's tool steps (${HAVE_FIXTURES ? 'fixture 2' : NO_FIXTURES})`, async () => {
    const home = tempHome();
    const ws = makeWorkspace({ 'keep.txt': 'not touched by the agent\n' });
    const config = tempDir('retrace-claude-');
    const project = join(config, 'projects', '-test-project');
    mkdirSync(project, { recursive: true });
    for (const rel of [F2, F2_AGENT]) copyFileSync(FIXTURES + rel, join(project, rel.split('/').pop()!));
    const file = join(project, F2.split('/').pop()!);
    const env = { CLAUDE_CONFIG_DIR: config };
    const imported = await cliJson<{ session: string }>(['import', 'claude-code', file, '--cwd', ws], { home, env });
    const log = await cliJson<{ messages: { id: string; role: string; text: string; hash: string | null }[] }>(
      ['log', '--session', imported.session, '--cwd', ws],
      { home },
    );
    const last = log.messages.filter((m) => m.hash).at(-1)!;
    await cliJson(['restore', last.hash!, '--code', '--cwd', ws], { home });

    const { lines } = await cliJson<{ lines: Line[] }>(['blame', '.gitignore', '--cwd', ws], { home });
    const edits = new Map(log.messages.filter((m) => m.hash).map((m) => [m.hash!, m]));
    const changed = lines.filter((l) => l.hash !== null);
    expect(changed.length).toBeGreaterThan(0);
    for (const l of changed) {
      const step = edits.get(l.hash!)!;
      expect(step).toBeDefined();
      expect(l).toMatchObject({ session: imported.session, message: step.id, role: step.role });
      // The transcript's edits of .gitignore are tool calls: the agent's.
      expect(step.text).toMatch(/\.gitignore/);
      expect(l).toMatchObject({ origin: 'agent', agent: 'claude-code', role: 'tool' });
    }
    for (const l of lines.filter((x) => x.hash === null)) expect(l.origin).toBe('baseline');
  });
});

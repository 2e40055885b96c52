/** `retrace demo`: a real project with a recorded multi-turn session covering every kind of change. */
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, removeTree, runCli, tempDir, tempHome } from '../helpers';

afterAll(cleanupTempDirs);

describe('retrace demo', () => {
  it('makes a project whose session has user/assistant/tool messages and ≥5 checkpoints with added, modified, renamed, deleted and binary changes', async () => {
    const home = tempHome();
    const made = await cliJson<{ workspace: string; session: string }>(['demo'], { home });
    try {
      expect(made.session).toBe('demo');
      expect(made.workspace).toMatch(/retrace-demo-/);
      const log = await cliJson<{ messages: { role: string; hash: string | null }[] }>(
        ['log', '--cwd', made.workspace],
        { home },
      );
      expect(new Set(log.messages.map((m) => m.role))).toEqual(new Set(['user', 'assistant', 'tool']));
      const hashes = log.messages.filter((m) => m.hash).map((m) => m.hash!);
      expect(hashes.length).toBeGreaterThanOrEqual(5);
      const changes: string[] = [];
      for (let i = 1; i < hashes.length; i++) {
        const d = await cliJson<{ files: { path: string; status: string; binary: boolean }[] }>(
          ['diff', hashes[i - 1]!, hashes[i]!, '--cwd', made.workspace],
          { home },
        );
        for (const f of d.files) changes.push(`${f.status}${f.binary ? ' binary' : ''} ${f.path}`);
      }
      expect(changes).toEqual(
        expect.arrayContaining([
          'added src/greet.js',
          'modified src/index.js',
          'renamed src/greeting.js',
          'deleted notes.txt',
          'modified binary assets/logo.png',
          'added test/greeting.test.js',
        ]),
      );
      // It is a real project: its test passes.
      expect(execFileSync(process.execPath, ['test/greeting.test.js'], { cwd: made.workspace, encoding: 'utf8' })).toBe(
        'ok\n',
      );
      const sessions = await cliJson<{ source: string; checkpoints: number }[]>(['sessions', '--cwd', made.workspace], {
        home,
      });
      expect(sessions).toMatchObject([{ source: 'demo', checkpoints: hashes.length }]);
    } finally {
      removeTree(made.workspace);
    }
  });

  it('fills a given new or empty folder, and refuses a non-empty one', async () => {
    const home = tempHome();
    const dir = join(tempDir(), 'fresh');
    const human = await runCli(['demo', dir], { home });
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(`${dir}\n`); // the folder alone: `retrace serve "$(retrace demo)"`
    expect(human.stderr).toMatch(/demo session demo: 15 messages, 14 checkpoints/);
    expect(readdirSync(dir).sort()).toEqual(['README.md', 'assets', 'package.json', 'src', 'test']);
    const full = tempDir();
    writeFileSync(join(full, 'x'), 'x');
    const r = await runCli(['demo', full, '--json'], { home });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not empty/);
  });
});

/**
 * Issue 10, item 10, end to end: an agent's edit through a symlinked folder, recorded by the Claude Code hook
 * (a warm, hinted snapshot), keeps the link and the edit, and restoring that checkpoint loses neither.
 * (The warm and full trees are compared path by path in fastPaths.test.ts.)
 */
import { lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, gitAt, makeWorkspace, runCli, shadowDir, tempHome } from '../../../../test/helpers';

afterAll(cleanupTempDirs);

it('a hooked edit through a symlinked folder records the link and the edit, and restores both', async () => {
  const root = makeWorkspace({ 'a.txt': 'a\n' });
  mkdirSync(path.join(root, 'v2'));
  writeFileSync(path.join(root, 'v2/x.ts'), 'export const x = 1;\n');
  symlinkSync('v2', path.join(root, 'current'));
  const home = tempHome();
  const opts = { home, cwd: root };
  await cliJson(['checkpoint', '--session', 'sess-1'], opts); // a full scan: the hook's may then be warm

  writeFileSync(path.join(root, 'current/x.ts'), 'export const x = 2;\n');
  const payload = {
    hook_event_name: 'PostToolUse',
    session_id: 'sess-1',
    cwd: root,
    tool_name: 'Edit',
    tool_input: { file_path: path.join(root, 'current/x.ts'), old_string: '1', new_string: '2' },
  };
  const hook = await runCli(['hook', 'claude-code'], { ...opts, input: JSON.stringify(payload) });
  expect(hook.code, hook.stderr).toBe(0);
  const scan = JSON.parse(readFileSync(path.join(shadowDir(home, root), 'retrace-scan.json'), 'utf8')) as {
    warmSinceFull: number;
  };
  expect(scan.warmSinceFull).toBe(1); // the hint was used: this is the warm path

  const log = await cliJson<{ messages: { hash: string | null }[] }>(['log', '--session', 'sess-1'], opts);
  const hash = log.messages.at(-1)!.hash!;
  const tree = gitAt(shadowDir(home, root), ['ls-tree', '-r', hash]);
  expect(tree).toMatch(/^120000 blob \w+\tcurrent$/m);
  expect(gitAt(shadowDir(home, root), ['show', `${hash}:v2/x.ts`])).toBe('export const x = 2;\n');

  writeFileSync(path.join(root, 'v2/x.ts'), 'export const x = 3;\n');
  await cliJson(['restore', hash, '--code'], opts);
  expect(lstatSync(path.join(root, 'current')).isSymbolicLink()).toBe(true);
  expect(readlinkSync(path.join(root, 'current'))).toBe('v2');
  expect(readFileSync(path.join(root, 'v2/x.ts'), 'utf8')).toBe('export const x = 2;\n');
});

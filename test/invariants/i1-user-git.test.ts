/** I1: no file under any .git (root or nested) is written, renamed, moved or locked by any command. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, git, gitManifest, manifestDiff, runCli, tempHome } from '../helpers';
import { makeUserProject } from '../cli/fixture';

afterAll(cleanupTempDirs);

describe("I1: the user's git is never touched", () => {
  it('every byte, mode and mtime under every .git is identical after every command', async () => {
    const home = tempHome();
    const root = makeUserProject();
    const o = { home, cwd: root };
    const porcelain = () => git(root, ['status', '--porcelain=v2', '--branch', '--untracked-files=all']);
    const stash = () => git(root, ['stash', 'list']);
    // git status refreshes the user's index itself: ask git first, then fingerprint.
    const statusBefore = porcelain();
    const stashBefore = stash();
    const before = gitManifest(root);
    const check = (step: string) => {
      const now = gitManifest(root);
      expect(manifestDiff(before, now), `after ${step}`).toEqual([]);
    };

    await cliJson(['message', '--role', 'user', '--text', 'hi'], o);
    check('message');
    const c1 = await cliJson(['checkpoint'], o);
    check('checkpoint');
    writeFileSync(join(root, 'src/app.ts'), 'edited\n');
    writeFileSync(join(root, 'vendor/lib/index.js'), 'nested edited\n');
    const c2 = await cliJson(['message', '--role', 'tool', '--text', 'edit', '--checkpoint'], o);
    check('message --checkpoint');
    for (const args of [
      ['sessions'],
      ['log', '--all'],
      ['diff', c1.hash as string],
      ['diff', c1.hash as string, c2.hash as string],
      ['diff', c1.hash as string, '--file', 'src/app.ts'],
      ['status'],
    ]) {
      await cliJson(args, o);
      check(args.join(' '));
    }
    await cliJson(['restore', c1.hash as string, '--code', '--dry-run'], o);
    check('restore --dry-run');
    await cliJson(['restore', c1.hash as string, '--both'], o);
    check('restore --both');
    await cliJson(['undo'], o);
    check('undo');
    await cliJson(['restore', c1.message as string, '--code', '--file', 'vendor/lib/index.js'], o);
    check('restore --file in the nested repo');
    await runCli(['restore', 'deadbeef00', '--code', '--json'], o);
    check('a failing restore');
    // The user's index, HEAD, branches, stash and work-tree status as git reports them (files put back first).
    writeFileSync(join(root, 'src/app.ts'), 'export const app = 1;\n');
    writeFileSync(join(root, 'vendor/lib/index.js'), 'nested\n');
    expect(stash()).toBe(stashBefore);
    expect(porcelain()).toBe(statusBefore);
    expect(git(root, ['diff', '--cached', '--name-only'])).toBe('src/staged.ts\n');
  });
});

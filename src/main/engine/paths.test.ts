/** One table for the one path-safety module (paths.ts): what a caller may name, and what it comes out as. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RetraceError } from '../../shared/errors';
import { cleanupTempDirs, tempDir } from '../../../test/helpers/tmp';
import { assertSafeRelPath, checkWorkspacePath } from './paths';

afterAll(cleanupTempDirs);

const root = tempDir('retrace-paths-');
const outside = tempDir('retrace-paths-out-');
mkdirSync(join(root, 'src/inner'), { recursive: true });
writeFileSync(join(root, 'src/a.ts'), 'a');
symlinkSync(outside, join(root, 'out-link')); // a folder link that leads out of the root
symlinkSync('src', join(root, 'in-link')); // a folder link that stays inside
symlinkSync(join(root, 'gone'), join(root, 'dangling'));

function codeOf(f: () => unknown): Promise<string> {
  return Promise.resolve()
    .then(f)
    .then(
      () => 'ok',
      (e: unknown) => (e instanceof RetraceError ? e.code : `not a RetraceError: ${String(e)}`),
    );
}

// [given, expected normalised path or error code]
const fromPeople: [string, string][] = [
  ['src/a.ts', 'src/a.ts'],
  ['./src//a.ts', 'src/a.ts'],
  ['src/./inner/x', 'src/inner/x'],
  ['new/folder/file.txt', 'new/folder/file.txt'], // need not exist yet
  ['in-link/a.ts', 'in-link/a.ts'], // through a link that stays inside
  ['out-link', 'out-link'], // the link itself is inside; only going through it leads out
  ['out-link/secret', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['dangling/x', 'E_PATH_OUTSIDE_WORKSPACE'], // a link whose target cannot be judged is not followed
  ['../etc/passwd', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['src/../../x', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['/etc/passwd', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['\\\\server\\share', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['C:\\Windows', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['src\\..\\..\\x', 'E_PATH_OUTSIDE_WORKSPACE'], // a backslash is a separator on Windows
  ['', 'E_INVALID_INPUT'],
  ['.', 'E_INVALID_INPUT'],
  ['a\0b', 'E_INVALID_INPUT'],
];

// [engine-made path, ok or error code]
const fromEngine: [string, string][] = [
  ['src/a.ts', 'ok'],
  ['unicode/é 名前.txt', 'ok'],
  ['.gitignore', 'ok'],
  ['a/.github/x', 'ok'],
  ['', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['/abs', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['a//b', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['a/./b', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['a/../b', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['a\0b', 'E_PATH_OUTSIDE_WORKSPACE'],
  ['.git/config', 'E_INVALID_INPUT'], // I1: never a .git path
  ['sub/.git/HEAD', 'E_INVALID_INPUT'],
  ['sub/.git', 'E_INVALID_INPUT'],
  ['.GIT/config', 'E_INVALID_INPUT'], // the same folder on a case-insensitive disk
];

describe('checkWorkspacePath (paths from people and programs)', () => {
  it.each(fromPeople)('%j → %s', async (given, expected) => {
    const got = await checkWorkspacePath(root, given).catch((e: unknown) =>
      e instanceof RetraceError ? e.code : `not a RetraceError: ${String(e)}`,
    );
    expect(got).toBe(expected);
  });
});

describe('assertSafeRelPath (paths the engine made, right before touching the disk)', () => {
  it.each(fromEngine)('%j → %s', async (given, expected) => {
    expect(await codeOf(() => assertSafeRelPath(given))).toBe(expected);
  });
});
